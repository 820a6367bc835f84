#!/bin/sh
# Stand-in for E2B's MCP gateway in emulated sandboxes. E2B's SDK (and the provider) start it
# once after creating a sandbox with mcp: `mcp-gateway --config <json>`, as root, with the
# access token in GATEWAY_ACCESS_TOKEN. Like the real gateway it keeps the token in
# /etc/mcp-gateway/.token (and the configuration beside it), where clients read it; unlike it,
# it serves nothing on port 50005. E2B_EMULATOR_SANDBOX_ROOT, set only where sandboxes share
# the host's root, is where the sandbox's own / is.
set -eu
if [ "${1:-}" != "--config" ] || [ -z "${2:-}" ]; then
  echo "usage: mcp-gateway --config <json>" >&2
  exit 2
fi
if [ -z "${GATEWAY_ACCESS_TOKEN:-}" ]; then
  echo "mcp-gateway: GATEWAY_ACCESS_TOKEN is not set" >&2
  exit 1
fi
dir="${E2B_EMULATOR_SANDBOX_ROOT:-}/etc/mcp-gateway"
mkdir -p "$dir"
printf '%s' "$2" >"$dir/config.json"
printf '%s' "$GATEWAY_ACCESS_TOKEN" >"$dir/.token"
echo "mcp-gateway: configured (the emulator's stand-in serves nothing)"
