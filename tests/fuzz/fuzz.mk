# tests/fuzz/: libFuzzer harnesses (clang -fsanitize=fuzzer,address,undefined)
# for every parser of outside input. make fuzz runs each for FUZZ_SECONDS
# from a seed corpus of valid inputs and reports execs/s; crashes land in
# tests/fuzz/regressions/<harness>/, which make test replays.
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -O1 -g -std=gnu11 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(COMMON_INC) -Ihal/host -DLOG_LEVEL=-1 -DRKBARE_HOST=1
FUZZ_HARNESSES := fuzz_model_load fuzz_onnx fuzz_regcmd fuzz_boot fuzz_npy fuzz_capi
FUZZ_BINS := $(patsubst %,$(FUZZ_DIR)/%,$(FUZZ_HARNESSES))
FUZZ_ONNX_SRCS := tools/cli_parse.c tools/onnx/onnx_graph.c tools/onnx/onnx_shape.c tools/onnx/onnx_import.c \
	tools/onnx/import_util.c tools/onnx/import_patterns.c tools/onnx/import_qlinear.c \
	tools/onnx/import_fp16.c tools/onnx/import_ewise.c tools/onnx/model_write.c tools/onnx/onnx_ref.c \
	tools/onnx/onnx_quant.c tools/onnx/onnx_spatial.c tools/onnx/import_spatial.c tools/onnx/onnx_fold.c \
	tools/onnx/import_xformer.c

$(FUZZ_DIR)/fuzz_onnx: tests/fuzz/fuzz_onnx.c $(HOST_LIB_SRCS) $(FUZZ_ONNX_SRCS) $(ONNX_PB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(ONNX_GEN) $^ -lprotobuf-c -lm -o $@

# The .npy reader (tools/onnx/npy.c) on files it writes to a scratch path.
$(FUZZ_DIR)/fuzz_npy: tests/fuzz/fuzz_npy.c tools/onnx/npy.c tools/cli_parse.c | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $^ -lm -o $@

$(FUZZ_DIR)/%: tests/fuzz/%.c $(HOST_LIB_SRCS) | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $^ -lm -o $@

fuzz: $(FUZZ_BINS) $(FMNIST_DIR)/fmnist.rkb $(FMNIST_DIR)/fmnist_fp16.rkb
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh fuzz $(FUZZ_HARNESSES)

# Replays the seeds and every saved crash (no fuzzing): part of make test.
fuzz-regress: $(FUZZ_BINS) $(FMNIST_DIR)/fmnist.rkb $(FMNIST_DIR)/fmnist_fp16.rkb
	@sh tests/fuzz/run.sh regress $(FUZZ_HARNESSES)
.PHONY: fuzz fuzz-regress
