#!/bin/sh
# Installs the npm packages the tests and benchmarks use as references
# (tests/onnx/package.json: onnxruntime-node, whose CPU binaries ship in the
# package) into tests/onnx/node_modules. Idempotent. Node.js and npm come
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
if node -e 'require("onnxruntime-node")' >/dev/null 2>&1; then
	exit 0
fi
echo "setup-npm: installing onnxruntime-node into tests/onnx/node_modules"
ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip \
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
