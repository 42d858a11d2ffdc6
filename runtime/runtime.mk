# runtime/: DMA pool, regcmd compiler, layouts, model runtime.
RUNTIME_SRCS := runtime/dma_pool.c
IMAGE_SRCS += $(RUNTIME_SRCS)
HOST_LIB_SRCS += $(RUNTIME_SRCS)
