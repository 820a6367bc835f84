#!/usr/bin/env bash
# Offline demo: build the provider and OpenTofu (cached), start the local E2B
# emulator, apply examples/quickstart, show the outputs, pause and resume the
# sandbox in place, destroy everything; then build a template from
# examples/template-pipeline, smoke-test it and tag it (scripts/demo-templates.sh);
# stop the emulator.
# Works on a copy of the example in .cache/demo, so the repository stays clean.
# DEMO_CLI=/path/to/terraform runs it with a Terraform CLI instead of bin/tofu.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
demo_start=$SECONDS

if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"; }

step "building OpenTofu (cached), the provider and the emulator"
build_tofu
build_provider
go build -o "$CACHE/bin/e2b-emulator" ./cmd/e2b-emulator

work="$CACHE/demo"
rm -rf "$work"
mkdir -p "$work"
cp -r examples/quickstart/. "$work/"
write_dev_config "$work/dev.tfrc"
export TF_CLI_CONFIG_FILE="$work/dev.tfrc"
export TF_IN_AUTOMATION=1 # no "run tofu apply next" hints

step "starting the E2B emulator on a random local port"
emulator_pid=""
stop_emulator() {
  if [ -n "$emulator_pid" ] && kill -0 "$emulator_pid" 2>/dev/null; then
    kill -TERM "$emulator_pid" 2>/dev/null || true
    # It kills its sandbox processes on SIGTERM; insist after 10 s.
    for _ in $(seq 1 50); do kill -0 "$emulator_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$emulator_pid" 2>/dev/null || true
    wait "$emulator_pid" 2>/dev/null || true
  fi
}
trap stop_emulator EXIT
trap 'exit 130' INT TERM
"$CACHE/bin/e2b-emulator" -addr 127.0.0.1:0 -env-file "$work/emulator.env" >"$work/emulator.log" 2>&1 &
emulator_pid=$!
for _ in $(seq 1 300); do
  [ -s "$work/emulator.env" ] && break
  kill -0 "$emulator_pid" 2>/dev/null || { cat "$work/emulator.log"; die "the emulator exited"; }
  sleep 0.1
done
[ -s "$work/emulator.env" ] || die "the emulator did not start within 30 s (log: $work/emulator.log)"
set -a
# shellcheck disable=SC1091
source "$work/emulator.env"
set +a
echo "E2B_API_URL=$E2B_API_URL  E2B_SANDBOX_URL=$E2B_SANDBOX_URL  (API key in $work/emulator.env)"

cli="${DEMO_CLI:-$TOFU}"
echo "CLI: $("$cli" version | sed -n 1p)"
tofu() { (cd "$work" && "$cli" "$1" -no-color "${@:2}") 2>&1 | sed '/Provider development overrides are in effect/,/^releases\.$/d'; return "${PIPESTATUS[0]}"; }

step "tofu apply: sandbox, files, command, snapshot"
tofu apply -auto-approve
step "outputs"
tofu output

step "tofu apply -var paused=true: pause the sandbox in place"
tofu apply -auto-approve -var paused=true
echo "sandbox_state = $(tofu output -raw sandbox_state)"

step "tofu apply -var paused=false: resume it (same sandbox ID, files kept)"
tofu apply -auto-approve -var paused=false
echo "sandbox_id = $(tofu output -raw sandbox_id), sandbox_state = $(tofu output -raw sandbox_state)"

step "tofu plan: no changes, so the files and the command's result survived pause and resume"
tofu plan -detailed-exitcode || die "the plan after resume is not empty (exit code 2 means changes)"

step "tofu destroy"
tofu destroy -auto-approve | grep -E 'Destroying|Destruction complete|Destroy complete|Error|Warning'

# Templates as code: build -> smoke test in a sandbox -> promote with a tag.
bash "$ROOT/scripts/demo-templates.sh" "$cli" "$CACHE/demo-templates"

stop_emulator
step "done in $((SECONDS - demo_start)) s; emulator stopped"
