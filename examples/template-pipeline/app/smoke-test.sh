#!/usr/bin/env bash
# Runs in a sandbox from the new build; a non-zero exit stops the promotion.
set -euo pipefail
test -f /tmp/server-ready || { echo "the start command did not run" >&2; exit 1; }
test "$(cat /tmp/greeting)" = "$APP_GREETING" || { echo "unexpected greeting" >&2; exit 1; }
echo "smoke test passed: $(cat /tmp/greeting) ($(cat /app/BUILD_INFO))"
