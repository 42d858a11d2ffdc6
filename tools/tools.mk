# tools/: the host command-line tool build/host/rkbare.
HOST_TOOL_SRCS += tools/rkbare.c tools/cmd_info.c
