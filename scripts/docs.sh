#!/usr/bin/env bash
# Registry docs with tfplugindocs (pinned by tools/tfplugindocs/go.mod), offline.
#   scripts/docs.sh generate   write docs/ from templates/, examples/ and the provider schema
#   scripts/docs.sh check      regenerate into a temporary copy, fail on any difference, then
#                              run `tfplugindocs validate`
# The schema comes from the provider's own protocol server (internal/devtools/providerschema)
# because OpenTofu's `providers schema -json` has no action or list resource schemas.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
mode="${1:-generate}"

schema="$CACHE/docs/schema.json"
mkdir -p "$CACHE/docs"
go run -C "$ROOT" ./internal/devtools/providerschema -o "$schema"

generate() { # generate PROVIDER_DIR
  tool tfplugindocs generate --provider-dir "$1" --provider-name e2b --rendered-provider-name E2B \
    --providers-schema "$schema" >"$CACHE/docs/generate.log" 2>&1 || {
    cat "$CACHE/docs/generate.log"
    die "tfplugindocs generate failed"
  }
  # tfplugindocs prints a warning for example or template files that match no schema.
  if grep -i "warn\|does not exist" "$CACHE/docs/generate.log"; then
    die "tfplugindocs warned (see above): an example or template names a type the provider does not have"
  fi
}

case "$mode" in
generate)
  generate "$ROOT"
  say "docs/ regenerated"
  ;;
check)
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  cp -r "$ROOT/templates" "$ROOT/examples" "$ROOT/docs" "$work/"
  generate "$work"
  if ! diff -ru --exclude=.terraform "$ROOT/docs" "$work/docs"; then
    die "docs/ is out of date: run 'make docs' and commit the result"
  fi
  if ! (cd "$ROOT" && tool tfplugindocs validate --provider-name e2b --providers-schema "$schema") >"$CACHE/docs/validate.log" 2>&1; then
    grep -v '\[DEBUG\]' "$CACHE/docs/validate.log"
    die "tfplugindocs validate failed"
  fi
  say "docs/ is current and valid ($(find "$ROOT/docs" -name '*.md' | wc -l) pages)"
  ;;
*) die "usage: $0 generate|check" ;;
esac
