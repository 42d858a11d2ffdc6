#!/bin/sh
# The Llama-style decoder of examples/llm on the host (the NPU model behind
# the HAL) against tests/llm/llm_ref.py, a numpy reference written apart:
# in both flavours (w8a8, fp16 x int4 group 128) 4 prompt tokens and 12
# greedy ones, every token equal to numpy's and every logit within the
# reference's tolerance; w8a8 2 kicks per layer, int4 1, and one more per
# token.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make --no-print-directory -s host cli-helpers >/dev/null
bin=build/host/cli/llm_decode
for flavour in w8a8 int4; do
	"$bin" --flavour "$flavour" --prompt 1,2,3,4 --tokens 12 --logits "$tmp/$flavour.bin" \
		>"$tmp/$flavour.txt"
	tokens=$(sed -n 's/^step [0-9]*: in [0-9]* -> \([0-9]*\)$/\1/p' "$tmp/$flavour.txt" | paste -sd, -)
	# 16 steps of 2 layers: w8a8 5 kicks a step (the MLP's SiLU and 1 / rms
	# on the CPU), int4 3 (one a layer and the first Q/K/V)
	case $flavour in
	w8a8) kicks="80 kicks (5.0 per token: 1 + 2.0 per layer)" ;;
	*) kicks="48 kicks (3.0 per token: 1 + 1.0 per layer)" ;;
	esac
	grep -q "^llm: 2 layers, 16 steps, $kicks" \
		"$tmp/$flavour.txt" || { echo "FAIL: $flavour: kicks"; cat "$tmp/$flavour.txt"; exit 1; }
	/usr/bin/python3 tests/llm/llm_ref.py --flavour "$flavour" --prompt 1,2,3,4 --tokens 12 \
		--compare "$tmp/$flavour.bin" --c-tokens "$tokens"
done
# Bad arguments: a usage message, not a crash.
if "$bin" --flavour int2 >/dev/null 2>&1; then echo "FAIL: --flavour int2 accepted"; exit 1; fi
if "$bin" --tokens 100 >/dev/null 2>&1; then echo "FAIL: 104 positions accepted"; exit 1; fi
# A size rkb_chain cannot take: refused at create, the message naming it.
if "$bin" --hidden 100 >"$tmp/bad" 2>&1; then echo "FAIL: --hidden 100 accepted"; exit 1; fi
grep -q "llm_create: hidden (100)" "$tmp/bad" || { echo "FAIL: no message naming hidden"; cat "$tmp/bad"; exit 1; }
# A vocabulary wider than one matmul (8160 columns): the head in three
# chunks, against numpy's unchunked head.
"$bin" --flavour w8a8 --vocab 20000 --tokens 2 --logits "$tmp/wide.bin" >"$tmp/wide"
tokens=$(sed -n 's/^step [0-9]*: in [0-9]* -> \([0-9]*\)$/\1/p' "$tmp/wide" | paste -sd, -)
/usr/bin/python3 tests/llm/llm_ref.py --flavour w8a8 --vocab 20000 --tokens 2 \
	--compare "$tmp/wide.bin" --c-tokens "$tokens"
echo "llm_decode: tokens equal to numpy's in both flavours"
