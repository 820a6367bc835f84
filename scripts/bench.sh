#!/usr/bin/env bash
# Benchmarks with figures (BENCHMARKS.md): the provider under a real OpenTofu
# CLI against the emulator, next to outside anchors (HashiCorp's time provider,
# installed into .cache/anchors on first use, and terraform_data); the CPU of
# the provider's own calls; and the client's memory. Nothing is asserted about
# time; every figure is printed. Usage: scripts/bench.sh [go test -bench regexp]
#   E2B_BENCH_LATENCY=0s     latency added to every request (default 50ms)
#   E2B_BENCH_ROUNDS=5       rounds of anchors and e2b graph in turn (default 3)
#   E2B_BENCH_PROVIDER=path  measure another provider binary (e.g. an older build)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
build_tofu

pattern="${1:-.}"
export TF_ACC=1 TF_ACC_TERRAFORM_PATH="$TOFU"
say "end to end: requests, apply/plan/destroy against time_static and terraform_data, plan cost per resource, provider memory (E2B_BENCH_LATENCY=${E2B_BENCH_LATENCY:-50ms})"
go test ./test/bench -run '^$' -bench "$pattern" -benchtime 1x -timeout 60m -v | grep -v '^=== '
say "provider CPU per call: validate and plan of one chain, schema of a new process"
go test ./internal/provider -run '^$' -bench "${1:-RPC}" -benchmem -count 3 -timeout 20m
say "client and emulator: 256 MiB file both ways, 100 MiB of command output"
go test ./internal/e2b -run '^$' -bench "$pattern" -benchtime 1x -benchmem -timeout 20m
