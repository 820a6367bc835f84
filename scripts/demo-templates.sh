#!/usr/bin/env bash
# The template part of `make demo`: build examples/template-pipeline (Dockerfile
# + context), smoke-test the build in a sandbox, move the prod tag, show that an
# unrelated edit plans nothing and a copied file's edit rebuilds, then destroy.
# Runs inside scripts/demo.sh, which started the emulator and exported the
# E2B_* variables and TF_CLI_CONFIG_FILE. Usage: demo-templates.sh CLI WORKDIR
set -euo pipefail
cli_config="${TF_CLI_CONFIG_FILE:?run from scripts/demo.sh, which sets the dev_overrides config}"
source "$(dirname "$0")/lib.sh"
export TF_CLI_CONFIG_FILE="$cli_config" # lib.sh resets it; keep demo.sh's dev_overrides
cli="$1" work="$2"
name="$(basename "$cli")"

if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"; }
tf() { (cd "$work" && "$cli" "$1" -no-color "${@:2}") 2>&1 | sed '/Provider development overrides are in effect/,/^releases\.$/d'; return "${PIPESTATUS[0]}"; }

rm -rf "$work"
mkdir -p "$work"
cp -r "$ROOT/examples/template-pipeline/." "$work/"

step "templates: $name apply: build from the Dockerfile, smoke-test the build in a sandbox, tag it prod"
echo "(the emulator has no ubuntu:22.04 image: demo.sh lets it build on this machine's root filesystem, -host-root-images)"
tf apply -auto-approve | grep -E 'Creating|Creation complete|Apply complete|Error|Warning|│' || true
tf output
first_build="$(tf output -raw build_id)"

step "templates: edit a file no COPY line sends (README.md): the plan builds nothing"
echo "A note that is not part of the template." >>"$work/README.md"
tf plan -detailed-exitcode >/dev/null || die "editing an unrelated file planned changes"
echo "no changes"

step "templates: edit app/server.sh (copied by the Dockerfile): a new build of the same template"
sed -i 's/^# The template.s start command.*/# The start command, second release./' "$work/app/server.sh"
tf plan | grep -E '~ context_sha256|build_id|will be updated|must be replaced|Plan:' || true
tf apply -auto-approve | grep -E 'Modifying|Modifications complete|Creating|Creation complete|Destroying|Apply complete|Error' || true
second_build="$(tf output -raw build_id)"
[ "$second_build" != "$first_build" ] || die "the build ID did not change"
echo "build $first_build -> $second_build; $(tf output -raw prod)"
echo "smoke test: $(tf output -raw smoke_test)"

step "templates: $name destroy (the template, its tag and the smoke-test sandbox)"
tf destroy -auto-approve | grep -E 'Destruction complete|Destroy complete|Error|Warning' || true
