#!/usr/bin/env bash
# Runs E2B's official JavaScript SDK (e2b 2.51.0, then 2.50.0) and E2B's CLI
# (@e2b/cli 2.19.0) against the local emulator command and prints a closing
# "N passed, N failed" line.
# Needs only Go, Node 20+ and npm. Exits non-zero on any failure.
#
# Usage: bash conformance/run.sh [sdk-module ...]   (default: e2b e2b-2-50)
# Env: E2B_EMULATOR_ISOLATION=auto|none (passed to -isolation, default auto);
#      CONFORMANCE_EXPECT_NAMESPACES=0|1 (default 1 when root on Linux with
#      isolation auto: commands must see /home/user and /tmp literally).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
bin_dir="$repo/.cache/bin"

# module -> the exact version package.json pins for it.
declare -A sdk_versions=([e2b]=2.51.0 [e2b-2-50]=2.50.0)
cli_version=2.19.0 # @e2b/cli, as package.json pins it
modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(e2b e2b-2-50)

work="$(mktemp -d "${TMPDIR:-/tmp}/e2b-conformance.XXXXXX")"
emulator_pid=""
cleanup() {
  if [ -n "$emulator_pid" ] && kill -0 "$emulator_pid" 2>/dev/null; then
    kill -TERM "$emulator_pid" 2>/dev/null || true
    # Give it time to kill its sandbox processes, then insist.
    for _ in $(seq 1 50); do kill -0 "$emulator_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$emulator_pid" 2>/dev/null || true
    wait "$emulator_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail_setup() {
  echo "conformance: $*" >&2
  echo "0 passed, 1 failed"
  exit 1
}

# 1. Node dependencies, exactly as locked.
lock_seen="$here/node_modules/.package-lock.json"
if [ ! -f "$lock_seen" ] || [ "$here/package-lock.json" -nt "$lock_seen" ]; then
  echo "conformance: npm ci"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || fail_setup "npm ci failed"
fi

# 2. The emulator command, built into an ignored folder.
mkdir -p "$bin_dir"
echo "conformance: go build ./cmd/e2b-emulator"
(cd "$repo" && go build -o "$bin_dir/e2b-emulator" ./cmd/e2b-emulator) || fail_setup "building the emulator failed"

# 3. Start it on a random loopback port; it writes the env file once listening.
env_file="$work/emulator.env"
# As root on Linux the emulator gives each sandbox a private /home/user and
# /tmp (mount namespaces), and the scenario then insists on them.
isolation="${E2B_EMULATOR_ISOLATION:-auto}"
if [ -z "${CONFORMANCE_EXPECT_NAMESPACES:-}" ]; then
  CONFORMANCE_EXPECT_NAMESPACES=0
  if [ "$isolation" = auto ] && [ "$(uname -s)" = Linux ] && [ "$(id -u)" = 0 ]; then
    CONFORMANCE_EXPECT_NAMESPACES=1
  fi
fi
export CONFORMANCE_EXPECT_NAMESPACES
# A private TMPDIR shows whether the emulator removes its data on shutdown.
mkdir -p "$work/tmp"
# The template scenario builds fromImage('ubuntu:22.04'), which the emulator has
# no image of: it may build that one on the host's root; any other missing image
# fails its build (the scenario checks that too).
TMPDIR="$work/tmp" "$bin_dir/e2b-emulator" -addr 127.0.0.1:0 -isolation "$isolation" -env-file "$env_file" \
  -host-root-images ubuntu:22.04 >"$work/emulator.stdout" 2>"$work/emulator.log" &
emulator_pid=$!
for _ in $(seq 1 300); do
  [ -s "$env_file" ] && break
  kill -0 "$emulator_pid" 2>/dev/null || { tail -n 20 "$work/emulator.log" >&2; fail_setup "the emulator exited before listening"; }
  sleep 0.1
done
[ -s "$env_file" ] || fail_setup "the emulator wrote no env file within 30 s"

# Only the three variables the SDK needs and the admin token of the wire check, nothing else from the file.
unset E2B_DEBUG E2B_DOMAIN E2B_ACCESS_TOKEN E2B_API_URL E2B_SANDBOX_URL E2B_API_KEY E2B_EMULATOR_ADMIN_TOKEN
while IFS='=' read -r key value; do
  case "$key" in
    E2B_API_URL | E2B_SANDBOX_URL | E2B_API_KEY | E2B_EMULATOR_ADMIN_TOKEN)
      value="${value%\"}" value="${value#\"}" value="${value%\'}" value="${value#\'}"
      export "$key=$value"
      ;;
  esac
done <"$env_file"
for v in E2B_API_URL E2B_SANDBOX_URL E2B_API_KEY E2B_EMULATOR_ADMIN_TOKEN; do
  [ -n "${!v:-}" ] || fail_setup "$v missing from the emulator's env file"
done
# The volume-content API is served on the API host.
export E2B_VOLUME_API_URL="$E2B_API_URL"
echo "conformance: emulator at $E2B_API_URL (envd $E2B_SANDBOX_URL)"

# 4. The scenario, then the wire check, once per SDK version; then the template
# scenario once, with the current SDK.
total_passed=0
total_failed=0
# run_counted runs a node script that ends with "N passed, N failed" and adds
# its counts to the totals; a run without that line counts as one failure.
run_counted() {
  local out="$work/run.out" status=0 summary passed failed
  node "$@" | tee "$out" || status=$?
  summary="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1 || true)"
  if [ -z "$summary" ]; then
    echo "conformance: node $* ended without a summary (exit $status)"
    total_failed=$((total_failed + 1))
    return
  fi
  read -r passed _ failed _ <<<"$summary"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    total_failed=$((total_failed + 1)) # non-zero exit without a failed step
  fi
}
for module in "${modules[@]}"; do
  version="${sdk_versions[$module]:-}"
  [ -n "$version" ] || fail_setup "unknown SDK module $module (known: ${!sdk_versions[*]})"
  run_counted "$here/scenario.mjs" "$module" "$version"
  run_counted "$here/team-objects.mjs" "$module" "$version"
  run_counted "$here/env-vars.mjs" "$module" "$version"
  run_counted "$here/wire-check.mjs" "$version"
done
# Template builds with the current SDK (its Template API is what the provider
# matches), after every wire check, whose request counters it would change.
for module in "${modules[@]}"; do
  if [ "$module" = e2b ]; then
    run_counted "$here/template-scenario.mjs" "$module" "${sdk_versions[$module]}"
    # E2B's CLI, as a user runs it (it uses the current SDK).
    cli_started=$SECONDS
    run_counted "$here/cli-scenario.mjs" "$cli_version"
    echo "conformance: the CLI scenario took $((SECONDS - cli_started)) s"
  fi
done

# The emulator command must stop on SIGTERM and leave nothing behind.
kill -TERM "$emulator_pid"
stop_status=0
wait "$emulator_pid" || stop_status=$?
emulator_pid=""
leftovers="$(find "$work/tmp" -mindepth 1 -maxdepth 1 | head -n 5)"
if [ "$stop_status" -eq 0 ] && [ -z "$leftovers" ]; then
  echo "ok   emulator: SIGTERM stops it with status 0 and its temporary data removed"
  total_passed=$((total_passed + 1))
else
  echo "FAIL emulator: SIGTERM exit status $stop_status (want 0), left behind: ${leftovers:-nothing}"
  total_failed=$((total_failed + 1))
fi

# 5. Once more per version through a proxy that validates every request and
# answer against E2B's published specs (Go test, in-process emulator).
versions=()
for module in "${modules[@]}"; do versions+=("${sdk_versions[$module]//./\\.}"); done
run_regex="^TestSDKTrafficMatchesSpec\$/^($(IFS='|'; echo "${versions[*]}"))\$"
echo "conformance: go test ./conformance -run '$run_regex' (SDK traffic against the OpenAPI specs)"
spec_out="$work/spec.out"
spec_status=0
(cd "$repo" && E2B_CONFORMANCE=1 go test -count=1 -v -run "$run_regex" ./conformance/) >"$spec_out" 2>&1 || spec_status=$?
grep -E '^\s+(spec_test|validator)\.go:|^\s*--- (PASS|FAIL|SKIP)' "$spec_out" || true
spec_passed="$(grep -cE '^\s+--- PASS: TestSDKTrafficMatchesSpec/' "$spec_out" || true)"
spec_failed="$(grep -cE '^\s+--- FAIL: TestSDKTrafficMatchesSpec/' "$spec_out" || true)"
if grep -qE '^\s+--- SKIP: TestSDKTrafficMatchesSpec/' "$spec_out"; then
  echo "conformance: spec validation skipped (see the reason above)"
fi
if [ "$spec_status" -ne 0 ] && [ "$spec_failed" -eq 0 ]; then
  tail -n 30 "$spec_out"
  spec_failed=1
fi
total_passed=$((total_passed + spec_passed))
total_failed=$((total_failed + spec_failed))

if [ "$total_failed" -ne 0 ] && [ -s "$work/emulator.log" ]; then
  echo "conformance: last emulator log lines:"
  tail -n 40 "$work/emulator.log" | sed 's/^/  /'
fi
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
