#!/bin/sh
# Runs QEMU tests only (make qemu-test).
exec sh "$(dirname "$0")/run-all.sh" "" "$*"
