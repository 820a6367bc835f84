#!/usr/bin/env bash
# The whole test suite, stage by stage, with a timing summary at the end.
#   scripts/test.sh                 every stage (what `make test` and CI run)
#   scripts/test.sh vet gotest ...  only the named stages
# Stages: tools vet gotest terraform conformance docs examples lint release.
# Every stage runs even when an earlier one failed (one run shows every
# problem); the exit status is non-zero when any stage failed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
spec_env

ALL_STAGES=(tools vet gotest terraform conformance docs examples lint release)

stage_tools() {
  build_tofu
  install_tfplugindocs
  install_golangci_lint
  install_goreleaser
  "$TOFU" version | sed -n 1p
}

stage_vet() { go vet ./...; }

# Unit and acceptance tests in one `go test` run: TF_ACC=1 turns the
# acceptance tests on, against bin/tofu and the in-process emulator.
stage_gotest() {
  build_tofu
  mkdir -p "$CACHE/test"
  rm -f "$CACHE/test/summary.txt"
  go build -o "$CACHE/bin/gotestsummary" ./internal/devtools/gotestsummary
  local status=0
  TF_ACC=1 TF_ACC_TERRAFORM_PATH="$TOFU" TF_ACC_PROVIDER_NAMESPACE=e2b-terraform \
    go test -json -count=1 -timeout "${GO_TEST_TIMEOUT:-40m}" ${GO_TEST_FLAGS:-} ./... 2>&1 |
    "$CACHE/bin/gotestsummary" -log "$CACHE/test/go-test.log" | tee "$CACHE/test/summary.txt" || status=$?
  echo "full verbose log: .cache/test/go-test.log"
  return "$status"
}

# The provider's acceptance tests once more under a Terraform CLI, when one is
# installed (TERRAFORM=/path chooses it). None is downloaded: without one the
# stage says so and the suite has run on OpenTofu alone.
stage_terraform() {
  local tf="${TERRAFORM:-$(command -v terraform || true)}"
  if [ -z "$tf" ]; then
    echo "SKIP: no terraform binary on PATH (set TERRAFORM=/path/to/terraform); acceptance tests ran on OpenTofu only"
    return 0
  fi
  "$tf" version | sed -n 1p
  TF_ACC=1 TF_ACC_TERRAFORM_PATH="$tf" TF_ACC_PROVIDER_NAMESPACE=e2b-terraform \
    go test -count=1 -timeout "${GO_TEST_TIMEOUT:-40m}" ./internal/provider/
}

stage_conformance() {
  [ -f conformance/run.sh ] || die "conformance/run.sh is missing"
  bash conformance/run.sh
}

stage_docs() { bash scripts/docs.sh check; }
stage_examples() { bash scripts/examples.sh; }

stage_lint() {
  install_golangci_lint
  golangci-lint run ./...
}

stage_release() {
  install_goreleaser
  goreleaser check
  goreleaser build --snapshot --clean --single-target
}

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
# The Go test count closes the output: it is the figure that matters.
if [[ " ${stages[*]} " == *" gotest "* ]]; then
  grep -E '^tests: ' "$CACHE/test/summary.txt" 2>/dev/null || echo "tests: no go test summary (the run did not finish)"
fi
[ "$failures" -eq 0 ]
