#!/bin/sh
# `rkbare sim` on bad input: each case must exit non-zero with a message
# naming what was wrong (2 = bad arguments or stream, 1 = the run failed).
set -u
CMD=sim
. "$(dirname "$0")/lib.sh"
good=tests/data/mtx_matmul_fp16_4x32x16.regcmd

# The 4-entry tail of a DPU task and one body entry (HARDWARE.md §3.3).
body=10010000000E4004
tail_ok="0000000000000000
0101000000000014
0041000000000000
00810000000D0008"

# Bad hex line: the message names file and line.
printf '%s\nnot-hex\n%s\n' "$body" "$tail_ok" >"$tmp/badhex.regcmd"
expect 2 "badhex.regcmd:2:" --regcmd "$tmp/badhex.regcmd"
printf '%s\n0x1234\n' "$body" >"$tmp/short.regcmd"
expect 2 "short.regcmd:2:" --regcmd "$tmp/short.regcmd"

# Bad numbers and addresses.
expect 2 "not a 32-bit physical address" --regcmd "$good" --load 0x100000000="$good"
expect 2 "not a 32-bit physical address" --regcmd "$good" --regcmd-addr 0x8000000z
expect 2 "16-byte aligned" --regcmd "$good" --regcmd-addr 0x08000008
expect 2 "below 4 GiB" --regcmd "$good" --save 0xFFFFFF00:0x200="$tmp/x.bin"
expect 2 "ADDR:LEN=BINFILE" --regcmd "$good" --save 0x30000000="$tmp/x.bin"
expect 2 "ADDR=BINFILE" --regcmd "$good" --load 0x10000000
expect 2 "expected 0..2" --regcmd "$good" --core 3
expect 2 "expected 1.." --regcmd "$good" --timeout-ms 0
expect 2 "crosses 4 GiB" --regcmd "$good" --regcmd-addr 0xFFFFFF00
expect 2 "overlaps the stream" --regcmd "$good" --load 0x08000010="$good"
expect 2 "unknown option" --regcmd "$good" --frobnicate 1
expect 2 "is required" --core 0

# Missing files.
expect 2 "cannot open" --regcmd "$tmp/missing.regcmd"
expect 2 "cannot open" --regcmd "$good" --load 0x10000000="$tmp/missing.bin"

# Malformed streams.
printf "%s\n%s\n%s\n%s\n" "$body" "$body" "$body" "$body" >"$tmp/noend.regcmd"
expect 2 "no op-enable entry" --regcmd "$tmp/noend.regcmd"
printf '%s\n%s\n0101000000000014\n0041000000000000\n00810000000D0008\n' "$body" "$body" \
	>"$tmp/badtail.regcmd"
expect 2 "not the tail" --regcmd "$tmp/badtail.regcmd"
printf '%s\n0101200000000010\n0101000000370014\n0041000000000000\n00810000000D0008\n' \
	"$body" >"$tmp/chainout.regcmd"
expect 2 "chains to 0x20000000" --regcmd "$tmp/chainout.regcmd"
printf '%s\n0000000000000000\n0101000000000014\n0041000000000000\n0081000000050008\n' \
	"$body" >"$tmp/noevent.regcmd"
expect 2 "neither DPU nor PPU" --regcmd "$tmp/noevent.regcmd"
# Task 0 chains to task 1 at +0x30, but its PC_REGISTER_AMOUNTS (0) makes
# the PC fetch 2 qwords of the 5 task 1 has.
printf '%s\n0101080000300010\n0101000000000014\n0041000000000000\n00810000000D0008\n0000000000000000\n%s\n%s\n' \
	"$body" "$body" "$tail_ok" >"$tmp/shortfetch.regcmd"
expect 2 "fetches 2 qwords, the task has 5" --regcmd "$tmp/shortfetch.regcmd"
printf '%s\n0101080000000010\n0101000000020014\n0041000000000000\n00810000000D0008\n' \
	"$body" >"$tmp/loop.regcmd"
expect 2 "chains back into task 0" --regcmd "$tmp/loop.regcmd"
# Task 1 (at +0x40) chains back into the padding before itself: task 2
# would run into task 1's entries.
printf '%s\n0101080000400010\n0101000000020014\n0041000000000000\n00810000000D0008\n' \
	"$body" >"$tmp/overlap.regcmd"
printf '0000000000000000\n0000000000000000\n0000000000000000\n%s\n' "$body" >>"$tmp/overlap.regcmd"
printf '0101080000300010\n0101000000030014\n0041000000000000\n00810000000D0008\n' \
	>>"$tmp/overlap.regcmd"
expect 2 "task 2 overlaps task 1" --regcmd "$tmp/overlap.regcmd"
printf '%s\n%s\n%s\n' "$body" "$tail_ok" "$body" >"$tmp/stray.regcmd"
expect 2 "in no task" --regcmd "$tmp/stray.regcmd"

# Faults injected in the model: the driver reports them, the tool fails.
expect 2 "not a fault specification" --regcmd "$good" --fault bogus
expect 1 "DMA" --regcmd "$good" --fault dma_read
expect 1 "DMA" --regcmd "$good" --fault dma_write
expect 1 "job failed" --regcmd "$good" --fault hang --timeout-ms 20

# Several chains (one multi-core job): each further chain is placed and on a
# core of its own; the streams may not overlap.
expect 2 "needs its own --regcmd-addr and --core" --regcmd "$good" --regcmd "$good"
expect 2 "needs its own --regcmd-addr and --core" --regcmd "$good" --regcmd "$good" \
	--regcmd-addr 0x09000000
expect 2 "both on core 0" --regcmd "$good" --regcmd "$good" --regcmd-addr 0x09000000 --core 0
expect 2 "given twice for one --regcmd" --regcmd "$good" --core 0 --core 1
expect 2 "given twice for one --regcmd" --regcmd "$good" --regcmd-addr 0x09000000 \
	--regcmd-addr 0x0A000000
expect 2 "more than 3 --regcmd chains" --regcmd "$good" --regcmd "$good" --core 1 \
	--regcmd-addr 0x09000000 --regcmd "$good" --core 2 --regcmd-addr 0x0A000000 \
	--regcmd "$good"
expect 2 "overlaps the stream" --regcmd "$good" --regcmd "$good" --core 1 \
	--regcmd-addr 0x08000010
expect 1 "job failed on cores 0x3" --regcmd "$good" --regcmd "$good" --core 1 \
	--regcmd-addr 0x09000000 --fault dma_read

[ "$failures" -eq 0 ]
