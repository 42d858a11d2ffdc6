#!/bin/sh
# Installs the Debian packages rkbare needs to build, boot and test.
# Idempotent: installs only what is missing. Called by make when a tool is absent.
set -eu

PACKAGES="gcc-aarch64-linux-gnu picolibc-aarch64-linux-gnu qemu-system-arm \
u-boot-tools device-tree-compiler libfdt-dev libcmocka-dev gcc make \
protobuf-c-compiler libprotobuf-c-dev python3-onnx libonnx-testdata \
dataset-fashion-mnist zlib1g-dev python3-numpy python3-pil cppcheck valgrind \
clang libclang-rt-14-dev qemu-user u-boot-qemu mtools fdisk libtsan2"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

echo "setup: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
