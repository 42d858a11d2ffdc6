#!/bin/sh
# `rkbare regcmd` arguments: every subcommand's bad options exit 2 with a
# message naming the option and the value, and good options reach the
# registers they name (addresses, strides, kernel sizes, precisions, modes
# as the facts file encodes them: HARDWARE.md §4).
set -u
CMD=regcmd
. "$(dirname "$0")/lib.sh"

# prints PATTERN ARGS...: exit status 0 and a line of stdout matching PATTERN.
prints() {
	pattern=$1
	shift
	"$rk" "$CMD" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne 0 ] || ! grep -q -- "$pattern" "$tmp/out"; then
		echo "FAIL: rkbare $CMD $*: status $got, no line matching '$pattern'; stderr:"
		sed 's/^/    /' "$tmp/err"
		failures=$((failures + 1))
	fi
}

mm="--type int8:int32 --m 4 --k 32 --n 32"
conv="--h 8 --w 8 --c 16 --oc 16 --k 3"
pool="--h 8 --w 8 --c 16 --k 2"
add="--h 4 --w 4 --c 16"

# Subcommand and usage.
expect 2 "usage: rkbare regcmd"
expect 2 "unknown op 'frob'" frob

# matmul
expect 2 "matmul needs --type, --m, --k and --n" matmul
expect 2 "matmul needs --type" matmul --m 4 --k 32 --n 32
expect 2 "--type: 'bad' is not fp16:fp32" matmul --type bad --m 4
expect 2 "--m needs a value" matmul --type fp16:fp32 --m
expect 2 "--m: 'x' is not a 32-bit unsigned number" matmul --type fp16:fp32 --m x --k 32 --n 16
expect 2 "--k: '-1' is not a 32-bit unsigned number" matmul --type fp16:fp32 --m 4 --k -1 --n 16
expect 2 "--n: '0x100000000' is not a 32-bit" matmul --type fp16:fp32 --m 4 --k 32 --n 0x100000000
expect 2 "--a-addr: '0x1z' is not a 32-bit" matmul $mm --a-addr 0x1z
expect 2 "unknown option '--frob'" matmul $mm --frob 1
expect 2 "--same needs a value" matmul $mm --same
prints "program at 0x09000000" matmul $mm --regcmd-addr 0x09000000
prints "FEATURE_DATA_ADDR feature_base_addr=0x11110000" matmul $mm --a-addr 0x11110000
prints "DCOMP_ADDR0 decompress_addr0=0x22220000" matmul $mm --b-addr 0x22220000
prints "DPU.DST_BASE_ADDR dst_base_addr=0x33330000" matmul $mm --c-addr 0x33330000

# conv
expect 2 "conv needs --h, --w, --c, --oc and --k" conv --h 8 --w 8 --c 16 --k 3
expect 2 "--k: '0' is not K or KHxKW (1..31)" conv --h 8 --w 8 --c 16 --oc 16 --k 0
expect 2 "--k: '32' is not K or KHxKW" conv --h 8 --w 8 --c 16 --oc 16 --k 32
expect 2 "--k: '3x' is not K or KHxKW" conv --h 8 --w 8 --c 16 --oc 16 --k 3x
expect 2 "--k: '3x0' is not K or KHxKW" conv --h 8 --w 8 --c 16 --oc 16 --k 3x0
expect 2 "--h: '--same' is not a 32-bit" conv --h --same
expect 2 "--oc: 'many' is not a 32-bit" conv --h 8 --w 8 --c 16 --oc many --k 3
expect 2 "--stride: 'x' is not a 32-bit" conv $conv --stride x
expect 2 "--in-scale: 'abc' is not a number" conv $conv --in-scale abc
expect 2 "--w-scale: '1e' is not a number" conv $conv --w-scale 1e
expect 2 "--in-zp: '1.5' is not a 32-bit integer" conv $conv --in-zp 1.5
expect 2 "--w-zp: '99999999999' is not a 32-bit integer" conv $conv --w-zp 99999999999
expect 2 "--act: 'sigmoid' is not none, relu or relu6" conv $conv --act sigmoid
expect 2 "--scratch-addr: '-4' is not a 32-bit" conv $conv --scratch-addr -4
expect 2 "--h needs a value" conv $conv --h
expect 2 "--frob needs a value" conv $conv --same --frob
expect 2 "unknown option '--frob'" conv $conv --frob 1
expect 2 "--fp16 needs a value" conv --fp16
prints "conv_y_stride=2 conv_x_stride=2" conv $conv --stride 2
prints "WEIGHT_SIZE2 weight_width=1 weight_height=3" conv --h 8 --w 8 --c 16 --oc 16 --k 3x1
prints "PAD_CON0 pad_left=1 pad_top=1" conv $conv --same
prints "CONV_CON1 .* conv_mode=3" conv --h 8 --w 8 --c 32 --k 3 --depthwise
prints "program at 0x09000000" conv $conv --regcmd-addr 0x09000000
prints "FEATURE_DATA_ADDR feature_base_addr=0x11110000" conv $conv --in-addr 0x11110000
prints "DCOMP_ADDR0 decompress_addr0=0x22220000" conv $conv --w-addr 0x22220000
prints "BS_BASE_ADDR bs_base_addr=0x34340000" conv $conv --bias-addr 0x34340000
prints "DPU.DST_BASE_ADDR dst_base_addr=0x33330000" conv $conv --out-addr 0x33330000

# pool
expect 2 "--method: 'mean' is not max, min or avg" pool $pool --method mean
expect 2 "--k: 'x' is not a 32-bit" pool --h 8 --w 8 --c 16 --k x
expect 2 "--c: '' is not a 32-bit" pool --h 8 --w 8 --c "" --k 2
expect 2 "--stride needs a value" pool $pool --stride
expect 2 "--unsigned needs a value" pool $pool --unsigned
expect 2 "unknown option '--frob'" pool $pool --frob 1
prints "program at 0x09000000" pool $pool --regcmd-addr 0x09000000
prints "PPU_RDMA.SRC_BASE_ADDR src_base_addr=0x12340000" pool $pool --in-addr 0x12340000
prints "PPU_RDMA.DATA_FORMAT in_precision=2" pool $pool --fp16

# add
expect 2 "--act: 'relu8' is not none, relu or relu6" add $add --act relu8
expect 2 "--a-zp: 'x' is not a 32-bit integer" add $add --a-zp x
expect 2 "--b-scale: 'x' is not a number" add $add --b-scale x
expect 2 "--out-zp needs a value" add $add --out-zp
expect 2 "--same needs a value" add $add --same
expect 2 "unknown option '--frob'" add $add --frob 1
prints "program at 0x09000000" add $add --regcmd-addr 0x09000000
prints "DPU_RDMA.SRC_BASE_ADDR src_base_addr=0x11110000" add $add --a-addr 0x11110000
prints "DPU_RDMA.EW_BASE_ADDR ew_base_addr=0x22220000" add $add --b-addr 0x22220000
prints "DPU.DST_BASE_ADDR dst_base_addr=0x33330000" add $add --out-addr 0x33330000

[ "$failures" -eq 0 ]
