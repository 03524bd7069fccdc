#!/usr/bin/env bash
# Runs a libFuzzer target for a fixed number of inputs from a fixed random seed, on a
# fresh corpus seeded from the given folders (read only: new inputs go to a temporary
# folder). Fixed, so that a run in CI explores what the same run explored here; change
# the seed to explore elsewhere. A crash fails the test (exit status 1: libFuzzer's
# own 77 would read as "skipped" to meson); the input that caused it is kept in tests/fuzz/crashes/ of the build folder: copy it
# with the fix to tests/data/fuzz-regressions/ when it is a model (test-hostile runs every
# file there), or to tests/fuzz/regressions/TARGET/ for fuzz-array and fuzz-wire (whose
# checks run on every file there: tests/meson.build).
set -euo pipefail
fuzzer=$1 runs=$2
shift 2
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
artifacts=$(dirname "$fuzzer")/crashes/
mkdir -p "$artifacts"
seeds=()
for dir in "$@"; do
  [ -d "$dir" ] && seeds+=("$dir")
done
exec "$fuzzer" -seed=1 -runs="$runs" -max_total_time=240 -timeout=10 -error_exitcode=1 -timeout_exitcode=1 -rss_limit_mb=2048 -max_len=200000 \
  -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "${seeds[@]}"
