#!/bin/sh
# Runs unit-test binaries only (make unit).
exec sh "$(dirname "$0")/run-all.sh" "$*" ""
