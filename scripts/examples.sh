#!/usr/bin/env bash
# Every example must be formatted and valid: `tofu fmt -check -recursive examples`, then
# `tofu validate` in every folder with .tf files, against the freshly built provider
# through dev_overrides (no registry, no init, nothing written into examples/).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

build_tofu
build_provider
config="$(mktemp)"
trap 'rm -f "$config"' EXIT
write_dev_config "$config"

say "tofu fmt -check -recursive examples"
"$TOFU" fmt -check -recursive -diff "$ROOT/examples" || die "examples are not formatted: run 'bin/tofu fmt -recursive examples'"

checked=0 skipped=0 failed=0
while IFS= read -r dir; do
  rel="${dir#"$ROOT"/}"
  cli="$TOFU"
  if [[ "$rel" == examples/actions/* ]]; then
    # OpenTofu 1.12 rejects action blocks; Terraform 1.14+ can check them.
    if [ -z "${E2B_ACTIONS_CLI:-}" ]; then
      echo "SKIP $rel: action blocks need Terraform >= 1.14 (set E2B_ACTIONS_CLI to one to validate)"
      skipped=$((skipped + 1))
      continue
    fi
    cli="$E2B_ACTIONS_CLI"
  fi
  if out="$(cd "$dir" && TF_CLI_CONFIG_FILE="$config" "$cli" validate -no-color 2>&1)"; then
    echo "ok   $rel"
    checked=$((checked + 1))
  else
    echo "FAIL $rel"
    # Drop the dev_overrides banner; keep the real diagnostics.
    printf '%s\n' "$out" | sed '/Provider development overrides are in effect/,/^releases\.$/d' | sed 's/^/     /'
    failed=$((failed + 1))
  fi
done < <(find "$ROOT/examples" -name '*.tf' -not -path '*/.terraform/*' -printf '%h\n' | sort -u)

# List resource examples (*.tfquery.hcl) are read only by `terraform query` (Terraform 1.14+).
while IFS= read -r dir; do
  echo "SKIP ${dir#"$ROOT"/}: .tfquery.hcl files need Terraform >= 1.14 (terraform query); not checked here"
  skipped=$((skipped + 1))
done < <(find "$ROOT/examples" -name '*.tfquery.hcl' -printf '%h\n' | sort -u)

say "examples: $checked valid, $failed invalid, $skipped skipped"
[ "$failed" -eq 0 ]
