# sim/: the NPU model. Portable sources go into the image (qemu-virt answers
# NPU traffic with it) and into the host library; sim_host.c is host glue.
SIM_SRCS := sim/soc.c sim/regfile.c sim/pc.c sim/exec.c sim/exec_conv.c sim/conv_u8s8.c \
	sim/exec_dpu.c sim/lut.c sim/exec_ppu.c
IMAGE_SRCS += $(SIM_SRCS)
HOST_LIB_SRCS += $(SIM_SRCS) sim/sim_host.c
# The PMU/CRU model goes wherever the NPU model goes.
IMAGE_SRCS += sim/power.c
HOST_LIB_SRCS += sim/power.c
