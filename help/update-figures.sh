#!/bin/sh
# Makes the manual's figures of stacks, quantized models and profiles again from the
# app tests' window snapshots (run by hand, after a change they show):
#
#   help/update-figures.sh [BUILD_DIR]
#
# The tests draw their windows under Xvfb with the app's style sheet; each snapshot
# is the whole window at its test size.
set -eu
build=${1:-_build}
figures=$(dirname "$0")/C/figures
meson test -C "$build" app-drawing app-quant app-profile
cp "$build/tests/test-app-drawing-stack-closed.png" "$figures/onyx-stacks.png"
cp "$build/tests/app-quant.png" "$figures/onyx-quantized.png"
cp "$build/tests/app-profile-stack.png" "$figures/onyx-profile.png"
echo "figures in $figures: look at them before committing"
