#!/bin/sh
# The Llama-style decoder of examples/llm on the host (the NPU model behind
# the HAL) against tests/llm/llm_ref.py, a numpy reference written apart:
# in both flavours (w8a8, fp16 x int4 group 128) 4 prompt tokens and 12
# greedy ones; int4: every token equal to numpy's and every logit within the
# reference's tolerance; w8a8: every int8 op of every layer and step within
# one step of numpy's from the same inputs, and every token numpy's greedy
# choice from the decoder's last x (llm_ref.py says why a free-running
# comparison cannot be exact there); one kick per layer and one more per
# token in both.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make --no-print-directory -s host cli-helpers >/dev/null
bin=build/host/cli/llm_decode
for flavour in w8a8 int4; do
	trace=
	[ "$flavour" = w8a8 ] && trace="--trace $tmp/$flavour.trace"
	# shellcheck disable=SC2086 # $trace: the option and its file, or nothing
	"$bin" --flavour "$flavour" --prompt 1,2,3,4 --tokens 12 --logits "$tmp/$flavour.bin" \
		$trace >"$tmp/$flavour.txt"
	tokens=$(sed -n 's/^step [0-9]*: in [0-9]* -> \([0-9]*\)$/\1/p' "$tmp/$flavour.txt" | paste -sd, -)
	# 16 steps of 2 layers: 3 kicks a step (one a layer and the first Q/K/V)
	grep -q "^llm: 2 layers, 16 steps, 48 kicks (3.0 per token: 1 + 1.0 per layer)" \
		"$tmp/$flavour.txt" || { echo "FAIL: $flavour: kicks"; cat "$tmp/$flavour.txt"; exit 1; }
	# shellcheck disable=SC2086
	/usr/bin/python3 tests/llm/llm_ref.py --flavour "$flavour" --prompt 1,2,3,4 --tokens 12 \
		--compare "$tmp/$flavour.bin" --c-tokens "$tokens" $trace
done
# Bad arguments: a usage message, not a crash.
if "$bin" --flavour int2 >/dev/null 2>&1; then echo "FAIL: --flavour int2 accepted"; exit 1; fi
if "$bin" --tokens 100 >/dev/null 2>&1; then echo "FAIL: 104 positions accepted"; exit 1; fi
# A size rkb_chain cannot take: refused at create, the message naming it.
if "$bin" --hidden 100 >"$tmp/bad" 2>&1; then echo "FAIL: --hidden 100 accepted"; exit 1; fi
grep -q "llm_create: hidden (100)" "$tmp/bad" || { echo "FAIL: no message naming hidden"; cat "$tmp/bad"; exit 1; }
# A vocabulary wider than one matmul (8160 columns): the head in three
# chunks, against numpy's unchunked head.
"$bin" --flavour w8a8 --vocab 20000 --tokens 2 --logits "$tmp/wide.bin" \
	--trace "$tmp/wide.trace" >"$tmp/wide"
tokens=$(sed -n 's/^step [0-9]*: in [0-9]* -> \([0-9]*\)$/\1/p' "$tmp/wide" | paste -sd, -)
/usr/bin/python3 tests/llm/llm_ref.py --flavour w8a8 --vocab 20000 --tokens 2 \
	--compare "$tmp/wide.bin" --c-tokens "$tokens" --trace "$tmp/wide.trace"
echo "llm_decode: int4 tokens equal to numpy's; w8a8 op by op and its tokens numpy's choices"
