# tools/: the host command-line tool build/host/rkbare.
HOST_TOOL_SRCS += tools/model_host.c tools/cli_parse.c tools/rkbare.c tools/cmd_info.c
HOST_TOOL_SRCS += tools/cmd_disasm.c tools/cmd_regcmd.c
HOST_TOOL_SRCS += tools/cmd_sim.c
HOST_TOOL_SRCS += tools/op_stats.c
include tools/onnx/onnx.mk
