#!/bin/sh
# The image's exit status reaches the caller: scripts/qemu-run.sh (what
# make run calls) prints and returns it, 0 for a normal boot and the crash
# status for rkbare.selftest=crash; make run fails on the latter.
. "$(dirname "$0")/lib.sh"

out=$(sh "$ROOT/scripts/qemu-run.sh" "$IMG_DIR/Image" "rkbare.selftest=crash" $QEMU_FLAGS 2>&1)
status=$?
echo "$out" > "$OUT"
[ "$status" -eq 3 ] || fail "qemu-run.sh returned $status for a crash, want 3"
expect_line "qemu-run: image exit status 3"
sh "$ROOT/scripts/qemu-run.sh" "$IMG_DIR/Image" "" $QEMU_FLAGS > "$OUT" 2>&1 ||
	fail "qemu-run.sh failed for a normal boot"
expect_line "qemu-run: image exit status 0"
