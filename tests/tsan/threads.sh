#!/bin/sh
# Several threads on several contexts under ThreadSanitizer
# (tests/tsan/threads.c): outputs equal to a single-threaded run, and any
# ThreadSanitizer report fails the test through its own exit code.
set -eu
cd "$(dirname "$0")/../.."
make -s --no-print-directory build/host-tsan/threads >/dev/null
TSAN_EXIT=66
# halt_on_error: the first report ends the run; second_deadlock_stack: a
# lock-order report names both orders.
if TSAN_OPTIONS="halt_on_error=1 exitcode=$TSAN_EXIT second_deadlock_stack=1" \
	build/host-tsan/threads; then
	exit 0
else
	rc=$?
fi
if [ "$rc" -eq "$TSAN_EXIT" ]; then
	echo "threads: ThreadSanitizer reported a race or a lock-order problem (above)"
else
	echo "threads: failed with status $rc"
fi
exit 1
