#!/bin/sh
# rkbare.app=llm under QEMU: the decoder of examples/llm in both weight
# flavours through the unchanged driver and the trapped MMIO, 3 kicks per
# token for the 2 layers (1 + 1 per layer). int4: its tokens must be those
# numpy decodes (tests/llm/llm_ref.py, written apart). w8a8: those of the
# host's decoder after llm_ref.py has checked that run op by op (its int8
# maps are rounded after fp16 steps, so no free-running reference is exact:
# llm_ref.py says why; tests/llm/llm_decode.sh checks the same on its own).
. "$(dirname "$0")/lib.sh"

BOOT_TIMEOUT=${LLM_TIMEOUT:-60}
make --no-print-directory -s -C "$ROOT" host cli-helpers >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ROOT/build/host/cli/llm_decode" --flavour w8a8 --prompt 1,2,3,4 --tokens 12 \
	--logits "$tmp/w8a8.bin" --trace "$tmp/w8a8.trace" >"$tmp/w8a8.txt"
w8a8=$(sed -n 's/^step [0-9]*: in [0-9]* -> \([0-9]*\)$/\1/p' "$tmp/w8a8.txt" | paste -sd, -)
/usr/bin/python3 "$ROOT/tests/llm/llm_ref.py" --flavour w8a8 --prompt 1,2,3,4 --tokens 12 \
	--compare "$tmp/w8a8.bin" --c-tokens "$w8a8" --trace "$tmp/w8a8.trace" >/dev/null ||
	fail "the host's w8a8 decode does not match numpy op by op"
run_qemu "$IMG_DIR/Image" "rkbare.app=llm"
expect_status 0
for flavour in w8a8 int4; do
	if [ $flavour = w8a8 ]; then
		want=$w8a8
	else
		want=$(/usr/bin/python3 "$ROOT/tests/llm/llm_ref.py" --flavour $flavour \
			--prompt 1,2,3,4 --tokens 12 | sed -n 's/^tokens //p')
	fi
	[ -n "$want" ] || fail "no reference tokens for $flavour"
	expect_line "app: llm $flavour: tokens $want"
	expect_line "app: llm $flavour: 2 layers, 16 steps, 48 kicks, 3 per token (1 + 1 per layer)"
done
echo "llm_app: tokens on QEMU those checked against numpy in both flavours"
