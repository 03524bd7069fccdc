#!/bin/sh
# `_build/src/app/onyx MODEL.onnx` runs from the build folder with no GSETTINGS_SCHEMA_DIR:
# the app finds the schema compiled into the build's data/ (src/app/onyx-application.c)
# instead of aborting, or falling back to defaults, for want of an installed one.
# Usage: test-uninstalled.sh ONYX MODEL SCRATCH_DIR
set -u
onyx=$1 model=$2 scratch=$3
seconds=5

rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
# Only what xvfb-run needs, and what the sanitizer build sets (meson's *SAN_OPTIONS, the
# renderer). The memory backend leaves the user's settings alone; HOME is a scratch folder
# for the recent files, the crash journals and the caches.
clean_env() {
  env -i PATH="$PATH" HOME="$scratch" NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory \
    ${ASAN_OPTIONS+ASAN_OPTIONS="$ASAN_OPTIONS"} ${UBSAN_OPTIONS+UBSAN_OPTIONS="$UBSAN_OPTIONS"} \
    ${LSAN_OPTIONS+LSAN_OPTIONS="$LSAN_OPTIONS"} ${GDK_DEBUG+GDK_DEBUG="$GDK_DEBUG"} \
    ${GSK_RENDERER+GSK_RENDERER="$GSK_RENDERER"} "$@"
}

if clean_env gsettings list-keys io.github.onyxviewer.Onyx >/dev/null 2>&1; then
  echo "SKIP: the schema is installed, so the build's own is not the one found"
  exit 77
fi

# xvfb-run -a can lose the race for a display number to another test starting at the
# same time ("Xvfb failed to start"): that is no answer about onyx, so try again.
for attempt in 1 2 3; do
  clean_env xvfb-run -a -s '-screen 0 1280x800x24' timeout "$seconds" "$onyx" "$model" \
    2>"$scratch/stderr"
  status=$?
  grep -q 'Xvfb failed to start' "$scratch/stderr" || break
  sleep 1
done
cat "$scratch/stderr"
# Still running when timeout stops it: 124.
if [ "$status" -ne 124 ]; then
  echo "FAIL: onyx exited with status $status within $seconds s"
  exit 1
fi
# GLib's abort and the app's fallback to defaults both say so.
if grep -q 'schema .* is not installed' "$scratch/stderr"; then
  echo "FAIL: onyx did not find the build's settings schema"
  exit 1
fi
echo "PASS: onyx ran for $seconds s with the build's settings schema"
