# drivers/: the NPU driver, the register table and the console UARTs.
NPU_COMMON_SRCS := drivers/npu/npu_regs.c
NPU_DRIVER_SRCS := drivers/npu/npu.c drivers/npu/npu_power.c drivers/npu/npu_job.c
IMAGE_SRCS += $(NPU_COMMON_SRCS) $(NPU_DRIVER_SRCS)
# The host library drives the RK3588 model, so it carries the RK3588 table.
HOST_LIB_SRCS += $(NPU_COMMON_SRCS) $(NPU_DRIVER_SRCS) board/rk3588/npu_board.c
