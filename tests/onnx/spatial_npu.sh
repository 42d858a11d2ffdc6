#!/bin/sh
# The spatial ops (Resize, DepthToSpace, SpaceToDepth, Split, Slice, Pad,
# Concat of many maps, grouped / dilated / multiplier convolutions,
# ConvTranspose) end to end in int8 and fp16 against onnxruntime, and their
# bad attributes refused: tests/onnx/spatial_npu.py says how each is judged.
set -eu
cd "$(dirname "$0")/../.."
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 tests/onnx/spatial_npu.py build/host/rkbare "$tmp"
