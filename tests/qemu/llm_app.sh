#!/bin/sh
# rkbare.app=llm under QEMU: the decoder of examples/llm in both weight
# flavours through the unchanged driver and the trapped MMIO; its tokens
# must be those numpy decodes (tests/llm/llm_ref.py, written apart), with
# for the 2 layers 5 kicks per token in w8a8 (1 + 2 per layer) and 3 in
# int4 (1 + 1 per layer: its MLP's RMSNorm and SiLU on the NPU).
. "$(dirname "$0")/lib.sh"

BOOT_TIMEOUT=${LLM_TIMEOUT:-60}
run_qemu "$IMG_DIR/Image" "rkbare.app=llm"
expect_status 0
for flavour in w8a8 int4; do
	want=$(/usr/bin/python3 "$ROOT/tests/llm/llm_ref.py" --flavour $flavour \
		--prompt 1,2,3,4 --tokens 12 | sed -n 's/^tokens //p')
	[ -n "$want" ] || fail "llm_ref.py gave no tokens"
	expect_line "app: llm $flavour: tokens $want"
	case $flavour in
	w8a8) kicks="80 kicks, 5 per token (1 + 2 per layer)" ;;
	*) kicks="48 kicks, 3 per token (1 + 1 per layer)" ;;
	esac
	expect_line "app: llm $flavour: 2 layers, 16 steps, $kicks"
done
echo "llm_app: tokens on QEMU equal to numpy's in both flavours"
