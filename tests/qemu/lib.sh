# Shared helpers for the QEMU boot tests (sourced, POSIX sh).
#
# QEMU runs with the Makefile's QEMU_FLAGS (one definition): taken from the
# environment when set, else asked from make. Every run is bounded by
# `timeout`; the console output lands in $OUT with CRs removed.

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
QEMU=${QEMU:-qemu-system-aarch64}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-10}
IMG_DIR=$ROOT/build/qemu-virt

# Print the Makefile's QEMU_FLAGS; extra arguments are make variables
# (e.g. QEMU_MEM=512M).
qemu_flags() {
	make -s --no-print-directory -C "$ROOT" "$@" \
		--eval='print-qemu-flags: ; @echo $(QEMU_FLAGS)' print-qemu-flags
}

QEMU_FLAGS=${QEMU_FLAGS:-$(qemu_flags)}
OUT=$(mktemp)
trap 'rm -f "$OUT" "$OUT.raw"' EXIT

fail() {
	echo "FAIL: $(basename "$0"): $*"
	sed 's/^/  | /' "$OUT"
	exit 1
}

# run_qemu KERNEL "BOOTARGS" [more QEMU options]: sets STATUS.
run_qemu() {
	kernel=$1
	bootargs=$2
	shift 2
	[ -f "$kernel" ] || fail "no $kernel (run make first)"
	# shellcheck disable=SC2086
	timeout "$BOOT_TIMEOUT" "$QEMU" $QEMU_FLAGS "$@" -kernel "$kernel" \
		-append "$bootargs" </dev/null >"$OUT.raw" 2>&1
	STATUS=$?
	tr -d '\r' <"$OUT.raw" >"$OUT"
	rm -f "$OUT.raw"
	[ "$STATUS" -ne 124 ] || fail "no exit within $BOOT_TIMEOUT s"
}

# expect_status N: the run ended with exit status N.
expect_status() {
	[ "$STATUS" -eq "$1" ] || fail "exit status $STATUS, want $1"
}

# expect_nonzero: the run ended with a failure status (not a timeout).
expect_nonzero() {
	[ "$STATUS" -ne 0 ] || fail "exit status 0, want a failure"
}

# expect_line "TEXT": some console line contains TEXT (fixed string).
expect_line() {
	grep -qF -- "$1" "$OUT" || fail "no line containing: $1"
}

# expect_no_line "TEXT": no console line contains TEXT.
expect_no_line() {
	! grep -qF -- "$1" "$OUT" || fail "unexpected line containing: $1"
}

# model_image NAME: builds the image embedding `make run MODEL=NAME`'s model
# (and the host tool and helpers that check it), the default image rebuilt
# on exit for the tests that follow; sets TMP, a scratch directory removed
# then.
model_image() {
	TMP=$(mktemp -d)
	MODEL_IMAGE=$1
	trap 'rm -rf "$TMP" "$OUT" "$OUT.raw"
	      make -s -C "$ROOT" --no-print-directory BOARD=qemu-virt image >/dev/null' EXIT
	make -s -C "$ROOT" --no-print-directory host cli-helpers >/dev/null ||
		fail "make host cli-helpers"
	make -s -C "$ROOT" --no-print-directory BOARD=qemu-virt MODEL="$MODEL_IMAGE" image \
		>"$TMP/make.log" 2>&1 || { cat "$TMP/make.log"; fail "make MODEL=$MODEL_IMAGE image"; }
}
