#!/usr/bin/env bash
# Registry docs with tfplugindocs (pinned by tools/tfplugindocs/go.mod), offline.
#   scripts/docs.sh generate   write docs/ from templates/, examples/ and the provider schema,
#                              the compatibility table in templates/index.md.tmpl from
#                              internal/devtools/compatibility/table.go, the tested CLIs' line
#                              from their pins, and README.md's compatibility section from
#                              templates/index.md.tmpl
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

# tested_clis: the line of the compatibility section that names the CLIs CI tests on, made from
# their pins (OpenTofu in tools/go.mod, the Terraforms in scripts/lib.sh).
tested_clis() {
  local tofu
  tofu="$(awk '$1 == "github.com/opentofu/opentofu" { sub(/^v/, "", $2); print $2 }' "$ROOT/tools/go.mod")"
  [ -n "$tofu" ] || die "tools/go.mod pins no github.com/opentofu/opentofu"
  printf 'Tested on every change with OpenTofu %s, Terraform %s and Terraform %s.\n' \
    "$tofu" "$TERRAFORM_OLD_VERSION" "$TERRAFORM_VERSION"
}

# template_generated: templates/index.md.tmpl with the compatibility table of
# internal/devtools/compatibility/table.go and tested_clis in place of their lines.
template_generated() {
  local line
  line="$(tested_clis)"
  grep -q '^Tested on every change with ' "$ROOT/templates/index.md.tmpl" ||
    die "templates/index.md.tmpl has no 'Tested on every change with ...' line in its compatibility section"
  awk -v line="$line" '/^Tested on every change with / { print line; next } { print }' "$ROOT/templates/index.md.tmpl" |
    go run -C "$ROOT" ./internal/devtools/compatibility
}

# The compatibility section has one source, templates/index.md.tmpl; README.md holds a copy
# between the same two marker lines.
readme_with_compatibility() { # prints README.md with the template's section in place of its own
  awk -v tmpl="$ROOT/templates/index.md.tmpl" '
    BEGIN {
      while ((getline line < tmpl) > 0) {
        if (line ~ /^<!-- compatibility: /) copying = 1
        if (copying) block = block line "\n"
        if (line ~ /^<!-- compatibility end -->/) copying = 0
      }
      if (block == "") { print "templates/index.md.tmpl has no compatibility section" > "/dev/stderr"; exit 1 }
    }
    /^<!-- compatibility: / { printf "%s", block; skipping = 1; found = 1 }
    skipping { if ($0 ~ /^<!-- compatibility end -->/) skipping = 0; next }
    { print }
    END { if (!found) { print "README.md has no compatibility section" > "/dev/stderr"; exit 1 } }
  ' "$ROOT/README.md"
}

case "$mode" in
generate)
  template_generated >"$CACHE/docs/index.md.tmpl"
  mv "$CACHE/docs/index.md.tmpl" "$ROOT/templates/index.md.tmpl"
  generate "$ROOT"
  readme_with_compatibility >"$CACHE/docs/README.md"
  mv "$CACHE/docs/README.md" "$ROOT/README.md"
  say "docs/ regenerated"
  ;;
check)
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  if ! diff -u "$ROOT/templates/index.md.tmpl" <(template_generated); then
    die "templates/index.md.tmpl's compatibility table differs from internal/devtools/compatibility/table.go, or it does not name the pinned CLIs (scripts/lib.sh, tools/go.mod): run 'make docs' and commit the result"
  fi
  cp -r "$ROOT/templates" "$ROOT/examples" "$ROOT/docs" "$work/"
  generate "$work"
  if ! diff -ru --exclude=.terraform "$ROOT/docs" "$work/docs"; then
    die "docs/ is out of date: run 'make docs' and commit the result"
  fi
  readme_with_compatibility >"$work/README.md"
  if ! diff -u "$ROOT/README.md" "$work/README.md"; then
    die "README.md's compatibility section differs from templates/index.md.tmpl: run 'make docs' and commit the result"
  fi
  if ! (cd "$ROOT" && tool tfplugindocs validate --provider-name e2b --providers-schema "$schema") >"$CACHE/docs/validate.log" 2>&1; then
    grep -v '\[DEBUG\]' "$CACHE/docs/validate.log"
    die "tfplugindocs validate failed"
  fi
  say "docs/ is current and valid ($(find "$ROOT/docs" -name '*.md' | wc -l) pages)"
  ;;
*) die "usage: $0 generate|check" ;;
esac
