#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time on a fresh corpus seeded from the given
# folders (read only: new inputs go to a temporary folder). A crash fails the test;
# the input that caused it is kept in tests/fuzz/crashes/ of the build folder.
set -euo pipefail
fuzzer=$1 seconds=$2
shift 2
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
artifacts=$(dirname "$fuzzer")/crashes/
mkdir -p "$artifacts"
seeds=()
for dir in "$@"; do
  [ -d "$dir" ] && seeds+=("$dir")
done
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=200000 \
  -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "${seeds[@]}"
