# drivers/: the NPU driver, the register table and the console UARTs.
NPU_COMMON_SRCS := drivers/npu/npu_regs.c
IMAGE_SRCS += $(NPU_COMMON_SRCS)
HOST_LIB_SRCS += $(NPU_COMMON_SRCS)
