# runtime/: what runs a model: the DMA pool, the container loader, compile
# once / run many (model_run.c, which calls compiler/ at create), the DMA
# verifier, and the native, rknn and matmul APIs.
RUNTIME_SRCS := runtime/dma_pool.c runtime/dma_verify.c runtime/model_load.c runtime/model_check.c \
	runtime/op_kinds.c runtime/npu_fn.c \
	runtime/model_run.c runtime/model_mem.c runtime/model_io.c runtime/cpu_ops.c \
	runtime/cpu_spatial.c runtime/cpu_xformer.c \
	runtime/matmul_api.c runtime/matmul_types.c runtime/rknn_device.c runtime/rknn_handle.c runtime/rknn_api.c \
	runtime/rknn_mem.c runtime/rkb_chain.c
IMAGE_SRCS += $(RUNTIME_SRCS)
HOST_LIB_SRCS += $(RUNTIME_SRCS)
