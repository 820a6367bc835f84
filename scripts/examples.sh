#!/usr/bin/env bash
# Every example must be formatted, and valid on every CLI the README's compatibility table lists
# for it: OpenTofu (bin/tofu), the pinned Terraform 1.11.4 (or TERRAFORM=/path), and the pinned
# Terraform 1.16.3 (both in bin/, built by build_terraform). Action
# blocks and .tfquery.hcl files need Terraform 1.14+; import blocks by identity Terraform 1.12+.
#
# Each folder is checked as a user would copy it: in a scratch copy, with a required_providers
# block naming e2b-terraform/e2b added when the folder has none, against the fresh provider
# through dev_overrides for that address only (so an example that would resolve to hashicorp/e2b
# fails). A warning fails the example too. Nothing is written into examples/. Then the action
# examples are applied with Terraform 1.16.3 against a local emulator, so their action_trigger
# runs the action, the actions no trigger names are run with -invoke, and they are destroyed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

build_tofu
build_terraform
build_provider
work="$(mktemp -d)"
trap 'stop_emulator; rm -rf "$work"' EXIT
config="$work/cli.tfrc"
cat >"$config" <<CFG
provider_installation {
  dev_overrides {
    "registry.terraform.io/e2b-terraform/e2b" = "$PROVIDER_DIR"
    "registry.opentofu.org/e2b-terraform/e2b" = "$PROVIDER_DIR"
  }
  direct {}
}
CFG

say "tofu fmt -check -recursive examples"
"$TOFU" fmt -check -recursive -diff "$ROOT/examples" || die "examples are not formatted: run 'bin/tofu fmt -recursive examples'"

# The CLIs, each with its name as printed.
clis=("$TOFU")
# The older Terraform: TERRAFORM=/path, else the pinned 1.11.4 (bin/, built when missing).
[ -n "${TERRAFORM:-}" ] || build_terraform "$TERRAFORM_OLD_VERSION"
installed="${TERRAFORM:-$TERRAFORM_OLD}"
[ "$installed" = "$TERRAFORM14" ] || clis+=("$installed")
clis+=("$TERRAFORM14")
declare -A cli_name
for cli in "${clis[@]}"; do
  cli_name[$cli]="$("$cli" version | sed -n 1p)"
  echo "CLI: ${cli_name[$cli]} ($cli)"
done

# needs FILE: the oldest OpenTofu and Terraform (major.minor) the file's features need, as the
# compatibility table gives them; "none" when OpenTofu has the feature in no version.
needs() {
  local file=$1 tofu=1.6 tf=1.0
  # raise TOFU_MIN TF_MIN: keep the higher of each.
  raise() {
    if [ "$1" = none ] || { [ "$tofu" != none ] && [ "$(printf '%s\n' "$tofu" "$1" | sort -V | tail -1)" = "$1" ]; }; then tofu=$1; fi
    if [ "$(printf '%s\n' "$tf" "$2" | sort -V | tail -1)" = "$2" ]; then tf=$2; fi
  }
  grep -qE 'provider::e2b::' "$file" && raise 1.7 1.8
  grep -qE '^ephemeral "' "$file" && raise 1.11 1.10
  grep -qE '_wo[[:space:]]*=' "$file" && raise 1.11 1.11
  grep -qE '^[[:space:]]*identity[[:space:]]*=' "$file" && raise 1.12 1.12
  grep -qE '^action "|action_trigger' "$file" && raise none 1.14
  [[ "$file" != *.tfquery.hcl ]] || raise none 1.14
  echo "$tofu $tf"
}

# supports CLI FILE: whether the compatibility table lists CLI for everything FILE uses.
supports() {
  local tofu_min tf_min
  read -r tofu_min tf_min < <(needs "$2")
  if [ "$tofu_min" = none ]; then
    [[ "${cli_name[$1]}" != OpenTofu* ]] || return 1
    tofu_min=99.0
  fi
  cli_at_least "$1" "$tofu_min" "$tf_min"
}

# scratch_copy DIR [SKIP_FILE...]: a copy of the folder to run a CLI in, without the files named,
# with the provider block it needs.
scratch_copy() {
  local dir=$1 copy f
  copy="$work/$(basename "$dir")-$RANDOM"
  cp -r "$dir" "$copy"
  rm -rf "$copy/.terraform" "$copy"/.terraform.lock.hcl "$copy"/terraform.tfstate*
  for f in "${@:2}"; do rm -f "$copy/$(basename "$f")"; done
  if ! grep -qs 'required_providers' "$copy"/*.tf; then
    cat >"$copy/e2b_provider_source.tf" <<'TF'
terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}
TF
  fi
  echo "$copy"
}

# run CLI DIR ARGS...: the CLI in DIR with the dev_overrides config; output without its banner.
run() {
  local cli=$1 dir=$2 out status=0
  out="$(cd "$dir" && TF_CLI_CONFIG_FILE="$config" "$cli" "${@:3}" -no-color 2>&1)" || status=$?
  printf '%s\n' "$out" | sed '/Provider development overrides are in effect/,/^releases\.$/d'
  return "$status"
}

# Each folder on each CLI, with the files the table lists that CLI for (an import block by
# identity is left out on Terraform 1.11, the rest of its folder is still checked there).
checked=0 failed=0 unlisted=0
while IFS= read -r dir; do
  rel="${dir#"$ROOT"/}"
  for cli in "${clis[@]}"; do
    name="${cli_name[$cli]}"
    left_out=() kept=0 query=()
    for f in "$dir"/*.tf "$dir"/*.tfquery.hcl; do
      [ -e "$f" ] || continue
      if supports "$cli" "$f"; then
        kept=$((kept + 1))
        [[ "$f" != *.tfquery.hcl ]] || query=(-query)
      else
        left_out+=("$f")
      fi
    done
    if [ "$kept" -eq 0 ]; then
      echo "--   $rel on $name: not listed for it"
      unlisted=$((unlisted + 1))
      continue
    fi
    note=""
    [ ${#left_out[@]} -eq 0 ] || note=" (without $(for f in "${left_out[@]}"; do basename "$f"; done | paste -sd, -): not listed for it)"
    copy="$(scratch_copy "$dir" "${left_out[@]}")"
    if out="$(run "$cli" "$copy" validate "${query[@]}")" && ! grep -q '^Warning:' <<<"$out"; then
      echo "ok   $rel on $name$note"
      checked=$((checked + 1))
    else
      echo "FAIL $rel on $name$note"
      printf '%s\n' "$out" | sed 's/^/     /'
      failed=$((failed + 1))
    fi
  done
done < <(find "$ROOT/examples" \( -name '*.tf' -o -name '*.tfquery.hcl' \) -not -path '*/.terraform/*' -printf '%h\n' | sort -u)
say "validate: $checked passed, $failed failed ($unlisted folder/CLI pairs the compatibility table does not list)"

# The action examples run: apply (each action_trigger on create runs its action), -invoke for the
# actions no trigger names, then destroy (before_destroy triggers run); every action must complete.
start_emulator "$work"
ran=0
for dir in "$ROOT"/examples/actions/*/; do
  rel="examples/actions/$(basename "$dir")"
  copy="$(scratch_copy "$dir")"
  want="$(cat "$dir"/*.tf | grep -c '^action "')"
  all="" ok=1
  if out="$(run "$TERRAFORM14" "$copy" apply -auto-approve -input=false)"; then all+="$out"$'\n'; else ok=0; fi
  while read -r type name; do
    grep -qs "action\.$type\.$name" <(grep -h 'actions *=' "$dir"/*.tf) && continue
    if out2="$(run "$TERRAFORM14" "$copy" apply -auto-approve -input=false "-invoke=action.$type.$name")"; then all+="$out2"$'\n'; else ok=0; out+=$'\n'"$out2"; fi
  done < <(sed -nE 's/^action "([^"]+)" "([^"]+)".*/\1 \2/p' "$dir"/*.tf)
  if destroyed="$(run "$TERRAFORM14" "$copy" destroy -auto-approve -input=false)"; then all+="$destroyed"; else
    echo "FAIL $rel: destroy"
    printf '%s\n' "$destroyed" | sed 's/^/     /'
    failed=$((failed + 1))
  fi
  got="$(grep -c '^Action complete:' <<<"$all" || true)"
  if [ "$ok" -eq 1 ] && [ "$got" -ge "$want" ] && ! grep -q '^Warning:' <<<"$all"; then
    echo "ok   $rel: ran on ${cli_name[$TERRAFORM14]}, $got of its $want actions completed"
    ran=$((ran + 1))
  else
    echo "FAIL $rel: on ${cli_name[$TERRAFORM14]} (want $want actions to complete, without warnings; $got did)"
    printf '%s\n' "$out" "$all" | sed 's/^/     /'
    failed=$((failed + 1))
  fi
done

say "examples: $checked validations passed, $ran action examples applied, $failed failed"
[ "$failed" -eq 0 ]
