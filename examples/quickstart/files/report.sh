#!/usr/bin/env bash
# Runs inside the sandbox: its output depends on the files Terraform wrote.
set -euo pipefail
cat greeting.txt
echo "files: $(ls | sort | xargs)"
echo "greeting sha256: $(sha256sum greeting.txt | cut -c1-16)..."
