#!/bin/sh
# make lint: cppcheck (Debian package) over the project's own C, warnings
# and errors fatal. Findings that are wrong get an inline suppression with
# the reason next to the line (cppcheck-suppress), never a global one.
set -eu
cd "$(dirname "$0")/.."
command -v cppcheck >/dev/null || { echo "lint: cppcheck is missing (sh scripts/setup.sh)"; exit 1; }
cppcheck --enable=warning,portability,performance --std=c11 --inline-suppr -q -j2 \
	--error-exitcode=1 -I include -I . -I hal -I hal/host -DRKBARE_HOST=1 -DLOG_LEVEL=3 \
	--template='{file}:{line}: {severity}: {id}: {message}' \
	compiler runtime drivers sim hal board boot tools examples
echo "lint: cppcheck clean"
