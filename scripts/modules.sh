#!/usr/bin/env bash
# The example modules' own test suites (examples/modules/*/tests/*.tftest.hcl),
# as a user's CI would run them: `tofu test` against a local E2B emulator, with
# the freshly built provider through dev_overrides. They run again under
# `terraform test` on the pinned Terraform 1.11.4 (TERRAFORM=/path chooses another).
# Each module is copied to .cache/modules first, so examples/ stays clean.
# Test files named *_mock.tftest.hcl mock the provider; they also run without
# the emulator's address and key, to show that they need no E2B at all.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

build_tofu
build_provider
work="$CACHE/modules"
rm -rf "$work"
mkdir -p "$work"
write_dev_config "$work/dev.tfrc"
trap stop_emulator EXIT
trap 'exit 130' INT TERM
start_emulator "$work"

clis=("$TOFU")
# Terraform: TERRAFORM=/path, else the pinned 1.11.4 (bin/, built when missing).
[ -n "${TERRAFORM:-}" ] || build_terraform "$TERRAFORM_OLD_VERSION"
terraform="${TERRAFORM:-$TERRAFORM_OLD}"
if ! cli_at_least "$terraform" 1.6 1.6; then
  echo "SKIP terraform test: $terraform is $("$terraform" version | sed -n 1p); test files need Terraform 1.6+"
else
  clis+=("$terraform")
fi

passed=0 failed=0
# module_test copies module to dir and runs the rest of the arguments there
# (a CLI's `test`, behind env), counting and reporting the result as label.
module_test() {
  local label=$1 module=$2 dir=$3
  shift 3
  cp -r "$module" "$dir"
  if (cd "$dir" && env "$@") >"$dir.log" 2>&1; then
    echo "ok   $label: $(grep -E '^Success!' "$dir.log")"
    passed=$((passed + 1))
  else
    echo "FAIL $label"
    sed '/Provider development overrides are in effect/,/^releases\.$/d; s/^/     /' "$dir.log"
    failed=$((failed + 1))
  fi
}
for module in examples/modules/*/; do
  name="$(basename "$module")"
  for cli in "${clis[@]}"; do
    module_test "$name ($("$cli" version | sed -n 1p))" "$module" "$work/$name-$(basename "$cli")" \
      TF_CLI_CONFIG_FILE="$work/dev.tfrc" "$cli" test -no-color
  done
done
# Test files that mock the provider (mock_provider "e2b") must pass without
# any E2B: they run again with the emulator's address and key removed.
for file in examples/modules/*/tests/*_mock.tftest.hcl; do
  [ -e "$file" ] || continue
  module="$(dirname "$(dirname "$file")")"
  name="$(basename "$module")"
  for cli in "${clis[@]}"; do
    module_test "$name $(basename "$file") without E2B ($("$cli" version | sed -n 1p))" "$module" "$work/$name-mock-$(basename "$cli")" \
      -u E2B_API_KEY -u E2B_API_URL -u E2B_SANDBOX_URL -u E2B_DOMAIN \
      TF_CLI_CONFIG_FILE="$work/dev.tfrc" "$cli" test -no-color -filter="tests/$(basename "$file")"
  done
done
say "module tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
