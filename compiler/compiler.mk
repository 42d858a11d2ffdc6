# compiler/: ops to register-command streams. The regcmd encoder and its
# disassembler, the lowering of each op (tiling, conv, matmul, pool, add),
# tensor layouts and requantisation. Used by the host tool and, at create,
# by the runtime in the image.
COMPILER_SRCS := compiler/regcmd.c compiler/disasm.c compiler/layout.c \
	compiler/layout_wide.c compiler/quant.c compiler/lower_task.c compiler/lower_tile.c \
	compiler/lower_conv.c compiler/lower_matmul.c compiler/lower_pool.c \
	compiler/lower_eltwise.c
IMAGE_SRCS += $(COMPILER_SRCS)
HOST_LIB_SRCS += $(COMPILER_SRCS)
