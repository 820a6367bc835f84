#!/usr/bin/env bash
# Benchmarks with figures (BENCHMARKS.md): the provider under a real OpenTofu
# CLI against the emulator, and the client's memory. Nothing is asserted about
# time; every figure is printed. Usage: scripts/bench.sh [go test -bench regexp]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
build_tofu

pattern="${1:-.}"
export TF_ACC=1 TF_ACC_TERRAFORM_PATH="$TOFU"
say "end to end: apply/destroy, plan cost per resource, provider memory (E2B_BENCH_LATENCY=${E2B_BENCH_LATENCY:-50ms})"
go test ./test/bench -run '^$' -bench "$pattern" -benchtime 1x -timeout 60m
say "client and emulator: 256 MiB file both ways, 100 MiB of command output"
go test ./internal/e2b -run '^$' -bench "$pattern" -benchtime 1x -benchmem -timeout 20m
