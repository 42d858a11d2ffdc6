# sim/: sources (see Makefile header for the lists).
HOST_LIB_SRCS += sim/power.c
