#!/usr/bin/env bash
# The whole test suite, stage by stage, with a timing summary at the end.
#   scripts/test.sh                 every stage (what `make test` and CI run)
#   scripts/test.sh vet gotest ...  only the named stages
# Stages: tools vet gotest terraform terraform14 conformance docs docs-run examples modules lint release install.
# Not in the suite: release_all (goreleaser's dry run of every platform, before a release).
# Every stage runs even when an earlier one failed (one run shows every
# problem); the exit status is non-zero when any stage failed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ALL_STAGES=(tools vet gotest terraform terraform14 conformance docs docs-run examples modules lint release install)
COUNTS="$CACHE/test/counts" # the Go test counts, written by gotestsum after the run

# Builds OpenTofu into bin/tofu when tools/go.mod changed, the pinned Terraforms into
# bin/terraform-VERSION when their recipe changed, and every Go tool that
# tools/*/go.mod pins into Go's build cache; says what each one is.
stage_tools() {
  local t v start
  build_tofu
  echo "tofu: $("$TOFU" version | sed -n 1p)"
  for v in "$TERRAFORM_OLD_VERSION" "$TERRAFORM_VERSION"; do
    start=$SECONDS
    build_terraform "$v"
    echo "terraform-$v: $("$(terraform_bin "$v")" version | sed -n 1p) ($((SECONDS - start)) s)"
  done
  for t in "${GO_TOOLS[@]}"; do
    start=$SECONDS
    tool_bin "$t" >/dev/null
    echo "$t: $(tool_version "$t") ($((SECONDS - start)) s)"
  done
}

stage_vet() {
  bash scripts/check-tree.sh || die "git tracks build output or an oversized file (above)"
  go vet ./...
  go mod tidy -diff || die "go.mod or go.sum is not tidy: run 'go mod tidy'"
}

# Unit and acceptance tests in one `go test` run: TF_ACC=1 turns the
# acceptance tests on, against bin/tofu and the in-process emulator.
# gotestsum prints each package, failing tests' output and skip reasons.
stage_gotest() {
  build_tofu
  mkdir -p "$CACHE/test"
  rm -f "$COUNTS"
  local status=0
  TF_ACC=1 TF_ACC_TERRAFORM_PATH="$TOFU" TF_ACC_PROVIDER_NAMESPACE=e2b-terraform \
    tool gotestsum --format pkgname-and-test-fails --format-hide-empty-pkg \
    --jsonfile "$CACHE/test/go-test.json" \
    --post-run-command "bash -c 'echo \$TESTS_TOTAL \$TESTS_FAILED \$TESTS_SKIPPED \$TESTS_ERRORS >$COUNTS'" \
    -- -count=1 -timeout "${GO_TEST_TIMEOUT:-40m}" ${GO_TEST_FLAGS:-} ./... || status=$?
  tool gotestsum --raw-command --format standard-verbose -- cat "$CACHE/test/go-test.json" >"$CACHE/test/go-test.log" 2>&1 || true
  echo "full verbose log: .cache/test/go-test.log"
  return "$status"
}

# The provider's acceptance tests once more under Terraform 1.11.4, built from the
# Go module proxy like 1.16.3 (TERRAFORM=/path chooses another Terraform).
stage_terraform() {
  local tf="${TERRAFORM:-$TERRAFORM_OLD}"
  [ -n "${TERRAFORM:-}" ] || build_terraform "$TERRAFORM_OLD_VERSION"
  "$tf" version | sed -n 1p
  mkdir -p "$CACHE/test"
  rm -f "$CACHE/test/terraform.json"
  TF_ACC=1 TF_ACC_TERRAFORM_PATH="$tf" TF_ACC_PROVIDER_NAMESPACE=e2b-terraform \
    tool gotestsum --format pkgname-and-test-fails --jsonfile "$CACHE/test/terraform.json" -- \
    -count=1 -timeout "${GO_TEST_TIMEOUT:-40m}" ./internal/provider/
}

# print_skips STAGE JSON: every test `go test -json` output JSON says was skipped, with what it
# logged (its t.Skip reason first, then up to two lines more), one line each.
print_skips() {
  [ -s "$2" ] || return 0
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
    const said = new Map(), skipped = [];
    for (const l of lines) {
      if (!l.startsWith("{")) continue;
      const e = JSON.parse(l);
      if (!e.Test) continue;
      const key = e.Package + " " + e.Test;
      if (e.Action === "output" && /^\s+\S+\.go:\d+: /.test(e.Output)) {
        said.set(key, [...(said.get(key) || []), e.Output.trim().replace(/^\S+\.go:\d+: /, "")]);
      }
      if (e.Action === "skip") skipped.push([e.Package.replace(/^.*terraform-provider-e2b\/?/, "") || ".", e.Test, said.get(key) || []]);
    }
    for (const [pkg, test, why] of skipped) console.log(`  ${process.argv[2]}: ${pkg} ${test}: ${why.slice(0, 3).join(" | ")}`);
  ' "$2" "$1"
}

# The acceptance tests that need Terraform 1.14+ (actions, list resources, `terraform query`),
# which skip on OpenTofu and older Terraform, on the pinned Terraform built into bin/. They are
# found by their version check (see terraform14_tests); here none may skip.
stage_terraform14() {
  build_terraform
  local tests json="$CACHE/test/terraform14.json"
  # The rows of the "Keeping a sandbox's work" guide's table run on every CLI of the table,
  # snapshot_on_destroy's rows too.
  tests="$(terraform14_tests)|TestCLIWorkKept_.*"
  "$TERRAFORM14" version | sed -n 1p
  echo "tests: ${tests//|/ }"
  mkdir -p "$CACHE/test"
  TF_ACC=1 TF_ACC_TERRAFORM_PATH="$TERRAFORM14" TF_ACC_PROVIDER_NAMESPACE=e2b-terraform \
    tool gotestsum --format testname --jsonfile "$json" -- \
    -count=1 -timeout "${GO_TEST_TIMEOUT:-40m}" -run "^(${tests})\$" ./internal/provider/
  if grep -q '"Action":"skip","Package":"[^"]*","Test"' "$json"; then
    die "a test skipped on Terraform $TERRAFORM_VERSION (above); this stage exists to run them"
  fi
}

# terraform14_tests: the provider's tests whose version check names Terraform 1.14 or later
# (tfversion.Version1_14_0 ...), as a -run alternation. A check outside a Test function (in a
# helper) would hide its tests from this search, so it fails instead.
terraform14_tests() {
  local found
  found="$(awk '
    /^func / { name = "" }
    /^func Test[A-Za-z0-9_]*\(t \*testing\.T\)/ { name = $2; sub(/\(.*/, "", name) }
    /tfversion\.Version1_(1[4-9]|[2-9][0-9])_[0-9]+/ {
      if (name == "") { printf "ERROR %s:%d\n", FILENAME, FNR } else { print name }
    }' "$ROOT"/internal/provider/*_test.go | sort -u)"
  if grep '^ERROR' <<<"$found"; then
    die "a Terraform 1.14+ version check outside a Test function (above): name it in the test itself, so this stage finds the test"
  fi
  [ -n "$found" ] || die "no test checks for Terraform 1.14+; the terraform14 stage would run nothing"
  paste -sd'|' <<<"$found"
}

stage_conformance() { bash conformance/run.sh; }

stage_docs() { bash scripts/docs.sh check; }

# Every page of docs/ as a reader copies it (test/docs says how): validated on OpenTofu, the
# pinned Terraform 1.11.4 (or TERRAFORM=/path) and Terraform 1.16.3, the guides' flows applied
# against the emulator.
stage_docs-run() {
  build_tofu
  build_terraform
  [ -n "${TERRAFORM:-}" ] || build_terraform "$TERRAFORM_OLD_VERSION"
  local clis="$TOFU" installed="${TERRAFORM:-$TERRAFORM_OLD}"
  if [ "$installed" != "$TERRAFORM14" ]; then clis+=":$installed"; fi
  clis+=":$TERRAFORM14"
  TF_ACC=1 E2B_DOCS_CLIS="$clis" go test -count=1 -timeout "${GO_TEST_TIMEOUT:-15m}" -v -run '^TestDocsRun$' ./test/docs/
}
stage_examples() { bash scripts/examples.sh; }
stage_modules() { bash scripts/modules.sh; }
stage_lint() {
  local status=0
  tool golangci-lint run ./... || status=1
  terrafmt_check || status=1
  testdata_fmt_check || status=1
  # The provider's schema against the rules of internal/provider/schema_lint_test.go (gotest runs it too).
  go test -count=1 -run '^TestProviderSchemaLint' ./internal/provider/ || status=1
  return "$status"
}

# terrafmt_check: the HCL inside Go tests, docs/, templates/ and examples/ (its READMEs; the .tf
# files are the examples stage's `tofu fmt -check`) formatted as
# `terraform fmt` would (`make fmt` fixes it). -f reads fmt verbs (%s, %[2]q) as placeholders.
# terrafmt's exit status is a bit set: 4 a block needs formatting, 2 a block it could not parse,
# 1 anything else. Only 2 passes: a test's configuration assembled from several Go strings or
# with a verb in place of a block is not HCL until the test fills it in, and is left out.
terrafmt_check() {
  local bin target pattern rc status=0 unread
  bin="$(tool_bin terrafmt)" || die "could not build terrafmt from tools/terrafmt/go.mod"
  mkdir -p "$CACHE/test"
  for target in internal:'*_test.go' test:'*_test.go' docs:'*.md' templates:'*.tmpl' examples:'*.md'; do
    pattern="${target#*:}"
    rc=0
    "$bin" diff --check --quiet --fmtcompat --uncoloured --pattern "$pattern" "${target%%:*}" \
      >"$CACHE/test/terrafmt.log" 2>&1 || rc=$?
    grep -v 'failed to process' "$CACHE/test/terrafmt.log" || true
    unread="$(grep -c 'failed to process' "$CACHE/test/terrafmt.log" || true)"
    if [ $((rc & ~2)) -ne 0 ]; then
      echo "terrafmt: HCL in ${target%%:*}/ ($pattern) is not formatted (blocks above): run 'make fmt'"
      status=1
    else
      echo "terrafmt: ${target%%:*}/ ($pattern) formatted; $unread blocks are not HCL until a test fills them in"
    fi
  done
  return "$status"
}

# testdata_fmt_check: the tests' HCL kept in testdata/ folders (internal/provider/testdata)
# formatted as `tofu fmt` would (`make fmt` fixes it).
testdata_fmt_check() {
  build_tofu
  local dirs
  mapfile -t dirs < <(git ls-files --cached --others --exclude-standard -- '*/testdata/*.tf' | xargs -r -n1 dirname | sort -u)
  [ ${#dirs[@]} -gt 0 ] || return 0
  if ! "$TOFU" fmt -check -diff -list=true "${dirs[@]}"; then
    echo "tofu fmt: HCL in testdata/ is not formatted (above): run 'make fmt'"
    return 1
  fi
  echo "tofu fmt: the .tf files of ${#dirs[@]} testdata folders formatted"
}

stage_release() {
  tool goreleaser check
  tool goreleaser build --snapshot --clean --single-target
}

# The release as users install it: signed, from a registry, on three CLIs, and upgrades.
stage_install() { bash scripts/install.sh; }

# Before tagging: every platform's archives, checksums and manifest (not signed).
stage_release_all() { tool goreleaser release --snapshot --clean --skip=publish,sign; }

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=("${ALL_STAGES[@]}")
for s in "${stages[@]}"; do
  declare -F "stage_$s" >/dev/null || die "unknown stage '$s' (stages: ${ALL_STAGES[*]})"
done

results=()
failures=0
suite_start=$SECONDS
for s in "${stages[@]}"; do
  printf '\n==> stage %s\n' "$s"
  start=$SECONDS
  # A subshell keeps one stage's `die` from ending the others. It must not
  # sit in an `if` condition: bash would then ignore `set -e` inside it.
  set +e
  (set -euo pipefail; "stage_$s")
  rc=$?
  set -e
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    result=FAILED
    failures=$((failures + 1))
  fi
  results+=("$(printf '%-12s %-7s %5ds' "$s" "$result" $((SECONDS - start)))")
  if [ "$s" = tools ] && [ "$result" != ok ]; then
    echo "tools could not be installed; stopping"
    break
  fi
done

printf '\n==> summary (%ds in all)\n' $((SECONDS - suite_start))
printf '  %s\n' "${results[@]}"
if [ "$failures" -gt 0 ]; then
  echo "FAILED: $failures of ${#results[@]} stages"
else
  echo "all ${#results[@]} stages passed"
fi
# Every skipped test and why: most need a newer CLI than the stage runs, or run in a stage of
# their own (named in the reason).
if [[ " ${stages[*]} " == *" gotest "* || " ${stages[*]} " == *" terraform "* ]]; then
  echo "skipped tests:"
  print_skips gotest "$CACHE/test/go-test.json"
  print_skips terraform "$CACHE/test/terraform.json"
fi
# The Go test count closes the output: it is the figure that matters. Packages
# that did not build count as failed tests.
if [[ " ${stages[*]} " == *" gotest "* ]]; then
  if read -r total failed skipped errors 2>/dev/null <"$COUNTS"; then
    echo "tests: $((total - failed - skipped)) passed, $((failed + errors)) failed, $skipped skipped"
  else
    echo "go test did not finish"
    echo "tests: 0 passed, 1 failed"
  fi
fi
[ "$failures" -eq 0 ]
