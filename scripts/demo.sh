#!/usr/bin/env bash
# Offline demo: build the provider, start the local E2B emulator, apply
# examples/quickstart, show the outputs, pause and resume the sandbox in place,
# destroy everything; then build a template from examples/template-pipeline,
# smoke-test it and tag it (scripts/demo-templates.sh); stop the emulator.
# The CLI: DEMO_CLI=/path when set, else a supported `tofu` or `terraform` on PATH,
# else bin/tofu (built from tools/go.mod the first time: minutes, then cached).
# Works on a copy of the example in .cache/demo, so the repository stays clean.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
demo_start=$SECONDS

if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"; }

# supported CLI: OpenTofu 1.6+ or Terraform 1.0+ run the demo (protocol 6
# providers, dev_overrides and `output -raw`).
supported() { cli_at_least "$1" 1.6 1.0; }

step "choosing the CLI"
cli="${DEMO_CLI:-}"
if [ -z "$cli" ]; then
  for candidate in tofu terraform; do
    path="$(command -v "$candidate" || true)"
    [ -n "$path" ] || continue
    if supported "$path"; then cli="$path" && break; fi
    echo "skipping $path ($("$path" version 2>/dev/null | sed -n 1p)): the demo needs OpenTofu 1.6+ or Terraform 1.0+"
  done
fi
if [ -z "$cli" ]; then
  echo "no supported tofu or terraform on PATH: using bin/tofu, the pinned OpenTofu"
  build_tofu
  cli="$TOFU"
fi
supported "$cli" || die "$cli is not OpenTofu 1.6+ or Terraform 1.0+"
cli_name="$(basename "$cli")"
echo "$cli: $("$cli" version | sed -n 1p)"

step "building the provider and starting the E2B emulator on a random local port"
build_provider
work="$CACHE/demo"
rm -rf "$work"
mkdir -p "$work"
cp -r examples/quickstart/. "$work/"
write_dev_config "$work/dev.tfrc"
export TF_CLI_CONFIG_FILE="$work/dev.tfrc"
export TF_IN_AUTOMATION=1 # no "run tofu apply next" hints
trap stop_emulator EXIT
trap 'exit 130' INT TERM
# examples/template-pipeline builds FROM ubuntu:22.04, which the emulator has no
# image of: it may build on this machine's root filesystem instead (and says so
# in the build log). Any other missing image would fail its build.
start_emulator "$work" -host-root-images ubuntu:22.04
echo "E2B_API_URL=$E2B_API_URL  E2B_SANDBOX_URL=$E2B_SANDBOX_URL  (API key in ${work#"$ROOT"/}/emulator.env)"

run() { (cd "$work" && "$cli" "$1" -no-color "${@:2}") 2>&1 | sed '/Provider development overrides are in effect/,/^releases\.$/d'; return "${PIPESTATUS[0]}"; }

step "$cli_name apply: sandbox, files, command, snapshot"
run apply -auto-approve
step "outputs"
run output

step "$cli_name apply -var paused=true: pause the sandbox in place"
run apply -auto-approve -var paused=true
echo "sandbox_state = $(run output -raw sandbox_state)"

step "$cli_name apply -var paused=false: resume it (same sandbox ID, files kept)"
run apply -auto-approve -var paused=false
echo "sandbox_id = $(run output -raw sandbox_id), sandbox_state = $(run output -raw sandbox_state)"

step "$cli_name plan: no changes, so the files and the command's result survived pause and resume"
run plan -detailed-exitcode || die "the plan after resume is not empty (exit code 2 means changes)"

step "$cli_name destroy"
run destroy -auto-approve | grep -E 'Destroying|Destruction complete|Destroy complete|Error|Warning'

# Templates as code: build -> smoke test in a sandbox -> promote with a tag.
bash "$ROOT/scripts/demo-templates.sh" "$cli" "$CACHE/demo-templates"

stop_emulator
step "done in $((SECONDS - demo_start)) s; emulator stopped"
