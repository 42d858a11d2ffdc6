# runtime/: DMA pool, regcmd compiler, layouts, model runtime.
RUNTIME_SRCS := runtime/dma_pool.c
IMAGE_SRCS += $(RUNTIME_SRCS)
HOST_LIB_SRCS += $(RUNTIME_SRCS)
# Command-stream compiler: regcmd encoder, disassembler, lowering, layouts.
RC_SRCS := runtime/regcmd.c runtime/disasm.c runtime/layout.c runtime/layout_wide.c runtime/quant.c runtime/lower_task.c runtime/lower_tile.c runtime/lower_conv.c runtime/lower_matmul.c runtime/lower_pool.c runtime/lower_eltwise.c runtime/matmul_api.c \
	runtime/dma_verify.c runtime/model_load.c runtime/model_run.c runtime/rknn_device.c runtime/rknn_api.c
IMAGE_SRCS += $(RC_SRCS)
HOST_LIB_SRCS += $(RC_SRCS)
