# tools/onnx/: the ONNX front end of the host tool. The protobuf C for
# onnx.proto is generated at build time by protoc-c (protobuf-c-compiler)
# from the onnx.proto that Debian's python3-onnx ships; libprotobuf-c parses.
ONNX_PROTO ?= /usr/lib/python3/dist-packages/onnx/onnx.proto
ONNX_GEN := $(HOST_DIR)/gen
ONNX_PB := $(ONNX_GEN)/onnx.pb-c.c

$(ONNX_GEN)/onnx.pb-c.h: $(ONNX_PB)
$(ONNX_PB): $(ONNX_PROTO) | $(TOOLS_STAMP)
	@mkdir -p $(ONNX_GEN)
	cp $(ONNX_PROTO) $(ONNX_GEN)/onnx.proto
	cd $(ONNX_GEN) && protoc-c --c_out=. onnx.proto

ONNX_SRCS := tools/onnx/onnx_graph.c tools/onnx/onnx_shape.c tools/onnx/onnx_ref.c \
	tools/onnx/onnx_spatial.c tools/onnx/onnx_quant.c tools/onnx/onnx_fold.c \
	tools/onnx/onnx_write.c tools/onnx/npy.c \
	tools/onnx/onnx_import.c tools/onnx/import_util.c tools/onnx/import_patterns.c \
	tools/onnx/import_qlinear.c tools/onnx/import_spatial.c tools/onnx/import_fp16.c \
	tools/onnx/import_ewise.c tools/onnx/import_xformer.c tools/onnx/model_write.c \
	tools/cmd_onnx_dump.c tools/cmd_onnx_ref.c tools/cmd_quantize.c tools/cmd_compile.c \
	tools/cmd_infer.c tools/cmd_compare.c tools/accuracy.c
HOST_TOOL_SRCS += $(ONNX_SRCS) $(ONNX_PB)
HOST_TOOL_LIBS += -lprotobuf-c
$(patsubst %,$(HOST_DIR)/obj/%.o,$(ONNX_SRCS)): $(ONNX_GEN)/onnx.pb-c.h
$(patsubst %,$(HOST_DIR)/obj/%.o,$(ONNX_SRCS) $(ONNX_PB)): HOST_CFLAGS += -I$(ONNX_GEN)
$(patsubst %,$(OPT_DIR)/obj/%.o,$(ONNX_SRCS)): $(ONNX_GEN)/onnx.pb-c.h
$(patsubst %,$(OPT_DIR)/obj/%.o,$(ONNX_SRCS) $(ONNX_PB)): OPT_CFLAGS += -I$(ONNX_GEN)
