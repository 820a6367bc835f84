#!/bin/bash
set -euo pipefail
echo "setting up $(hostname)"
