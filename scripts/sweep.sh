#!/usr/bin/env bash
# Deletes what acceptance tests left in the E2B team of E2B_API_KEY when a live run
# (E2B_LIVE=1 make test-gotest) was killed half-way: sandboxes that carry the metadata key
# tf-acc-test, their snapshots, and the snapshots, templates, template tags, volumes, secrets
# and webhooks whose name starts with tf-acc-test-. Nothing else is touched. It asks nothing
# and prints each object it deleted. The sweepers: internal/provider/sweep_test.go.
#   E2B_API_KEY=... scripts/sweep.sh          every sweeper
#   SWEEP_RUN=e2b_volume scripts/sweep.sh     only these (comma-separated) and what they depend on
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

[ -n "${E2B_API_KEY:-}" ] || die "E2B_API_KEY is not set: the sweepers delete what tests left in that key's team"
say "sweeping the team of E2B_API_KEY${E2B_API_URL:+ at $E2B_API_URL}"
args=(-count=1 -v -timeout 30m -run '^$' ./internal/provider/ -sweep=e2b)
[ -z "${SWEEP_RUN:-}" ] || args+=(-sweep-run="$SWEEP_RUN")
# Only the lines that say what was deleted, and the sweepers' errors.
go test "${args[@]}" 2>&1 | grep -v '\[DEBUG\]' | grep -v '^=== \|^--- \|^PASS$\|^ok \|^testing: warning'
