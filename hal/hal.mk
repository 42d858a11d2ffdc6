# hal/: the porting interface and its two implementations.
IMAGE_SRCS += hal/hal_poll.c hal/aarch64/hal_aarch64.c
HOST_LIB_SRCS += hal/hal_poll.c hal/host/hal_host.c hal/host/simd_level.c
