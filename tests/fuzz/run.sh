#!/bin/sh
# Runs the libFuzzer harnesses of tests/fuzz (fuzz.mk).
#   run.sh fuzz HARNESS...     fuzz each for $FUZZ_SECONDS from its seeds
#                              ($FUZZ_JOBS at a time, default one per CPU),
#                              report execs/s; a crash is saved under
#                              tests/fuzz/regressions/<harness>/ and fails
#   run.sh regress HARNESS...  replay the seeds and the saved crashes only
set -u
cd "$(dirname "$0")/../.."
mode=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=/usr/share/libonnx-testdata/data/node

seeds() {	# HARNESS DIR: a corpus of valid inputs
	mkdir -p "$2"
	case $1 in
	# besides the default model and its fp16 build: containers with two
	# shape sets and with an int32 output (tests/fuzz/seeds, written by
	# rkbare compile from a 3-op conv / pool / sigmoid model and a
	# ConvInteger), with views (a Concat written in place:
	# tests/onnx/spatial_npu.py's concat_last_narrow, int8), and with lut
	# ops (tests/onnx/ewise_gen.py's wide: fp16, model_lut.rkb; int8
	# tables between CPU ones, model_lut_int8.rkb), and hybrid int8 / fp16
	# (tests/onnx/keep_float.sh's graph, --keep-float r1: its conversions
	# NPU convert ops, model_hybrid.rkb, and CPU Casts with --no-fusion,
	# model_hybrid_cast.rkb)
	fuzz_model_load) cp build/models/fmnist/fmnist.rkb build/models/fmnist/fmnist_fp16.rkb \
		tests/fuzz/seeds/model_*.rkb "$2/" ;;
	fuzz_onnx)
		# besides the conformance models: the patterns onnx_fold.c
		# rewrites (tests/onnx/fold_gen.py's, inputs of fixed size) and
		# the spatial ops and convolution forms (spatial_npu.py --seeds), the
		# transformer pieces (tests/onnx/xformer_gen.py's; xformer_reduce_*:
		# reduce_gen.py's reductions over several axes, opset 18), the element-wise
		# ops between convolutions and their table chains (ewise_gen.py's;
		# ewise_rank5_head: a YOLOv5 detect head's decoding on [1, 3, 8, 8, 7]
		# tensors, the anchors a [1, 3, 1, 1, 2] constant, as
		# families_gen.py's yolov5s writes its last level),
		# a hybrid QDQ file with its fp16 nodes in its metadata
		# (tests/onnx/keep_float.sh's, --keep-float r1)
		cp models/fashion_mnist/fmnist_cnn.onnx tests/fuzz/seeds/fold_*.onnx \
			tests/fuzz/seeds/spatial_*.onnx tests/fuzz/seeds/xformer_*.onnx \
			tests/fuzz/seeds/ewise_*.onnx tests/fuzz/seeds/hybrid_*.onnx "$2/"
		for t in test_qlinearconv test_conv_with_strides_padding test_maxpool_2d_pads \
			 test_gemm_default_no_bias test_averagepool_2d_default test_qlinearmatmul_2D \
			 test_batchnorm_example test_softmax_axis_1 test_flatten_axis1 \
			 test_transpose_default test_convinteger_with_padding test_matmulinteger \
			 test_reshape_reordered_last_dims test_basic_conv_with_padding \
			 test_globalaveragepool test_add test_clip test_concat_2d_axis_0 test_if \
			 test_prelu_broadcast test_hardswish test_leakyrelu test_elu test_selu \
			 test_softplus test_mul_bcast test_sub_bcast test_div_bcast \
			 test_max_two_inputs test_min_two_inputs test_hardsigmoid \
			 test_layer_normalization_2d_axis1 test_reduce_mean_keepdims_example \
			 test_gather_0 test_matmul_3d test_squeeze test_sum_example \
			 test_reduce_l2_keep_dims_example test_reduce_log_sum_exp_keepdims_example \
			 test_resize_upsample_scales_cubic test_tile_precomputed \
			 test_gather_elements_0 test_expand_dim_changed test_add_bcast \
			 test_convtranspose_output_shape test_convtranspose_autopad_same; do
			[ -f "$D/$t/model.onnx" ] && cp "$D/$t/model.onnx" "$2/$t.onnx"
		done ;;
	fuzz_regcmd) cp tests/data/*.regcmd "$2/" ;;
	# .npy files of each element type and rank, written by numpy
	fuzz_npy) cp tests/fuzz/seeds/*.npy "$2/" ;;
	# call sequences over rknn_api.h and the matmul API (fuzz_capi.c: a
	# call byte and an argument byte each): a whole inference, zero copy,
	# a matmul with bound memory, destroys in the vendor's order
	fuzz_capi) cp tests/fuzz/seeds/capi_*.bin "$2/" ;;
	fuzz_boot)
		qemu-system-aarch64 -machine virt,dumpdtb="$2/virt.dtb" -cpu cortex-a76 \
			-m 1G -nographic > /dev/null 2>&1
		printf 'rkbare.fault=hang,core=1 rkbare.probe=A9-m1,cores rkbare.selftest=mmio' \
			> "$2/bootargs" ;;
	esac
}

# fuzz_one HARNESS: fuzz from the seeds for FUZZ_SECONDS; the verdict line
# in $tmp/HARNESS.result, "crash" in $tmp/HARNESS.crash on a crash.
fuzz_one() {
	h=$1
	reg=tests/fuzz/regressions/$h
	mkdir -p "$reg"
	"build/fuzz/$h" -max_total_time="${FUZZ_SECONDS:-60}" -print_final_stats=1 \
		-artifact_prefix="$reg/" "$tmp/$h" > "$tmp/$h.log" 2>&1
	status=$?
	execs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$tmp/$h.log")
	rate=$(awk '/stat::average_exec_per_sec/ { print $2 }' "$tmp/$h.log")
	if [ "$status" -ne 0 ]; then
		{ echo "fuzz: $h: CRASH after ${execs:-?} executions, input saved in $reg/:"
		  grep -m3 "ERROR\|SUMMARY\|runtime error" "$tmp/$h.log"; } > "$tmp/$h.result"
		touch "$tmp/$h.crash"
	else
		echo "fuzz: $h: ${execs:-?} executions in ${FUZZ_SECONDS:-60} s (${rate:-?}/s)," \
			"no crash" > "$tmp/$h.result"
	fi
	rmdir "$reg" 2>/dev/null
	# for make bench's section 9: the verdict, with when and on what
	printf '%s %s\t%s\n' "$(date -u +%F)" "$commit" "$(head -1 "$tmp/$h.result")" \
		> "build/fuzz/report-$h.txt"
}

fails=0
if [ "$mode" = regress ]; then
	for h in "$@"; do
		bin=build/fuzz/$h
		reg=tests/fuzz/regressions/$h
		corpus=$tmp/$h
		seeds "$h" "$corpus"
		set -- "$corpus"
		[ -d "$reg" ] && set -- "$corpus" "$reg"
		if ! "$bin" -runs=0 "$@" > "$tmp/$h.log" 2>&1; then
			echo "fuzz: $h: a seed or saved crash fails again:"; tail -20 "$tmp/$h.log"
			fails=$((fails + 1))
		else
			echo "fuzz: $h: seeds and $(ls "$reg" 2>/dev/null | wc -l) saved crash(es) replayed clean"
		fi
	done
	[ "$fails" -eq 0 ]
	exit
fi
# the tree fuzzed, as the run began
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "?")
# In batches of FUZZ_JOBS harnesses (default: one per CPU), each on one core.
jobs=${FUZZ_JOBS:-$(nproc)}
running=0
for h in "$@"; do
	seeds "$h" "$tmp/$h"
	fuzz_one "$h" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
for h in "$@"; do
	cat "$tmp/$h.result"
	[ -e "$tmp/$h.crash" ] && fails=$((fails + 1))
done
[ "$fails" -eq 0 ]
