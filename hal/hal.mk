# hal/: the porting interface and its two implementations.
# hal/aarch64 sources are added by the boot work (hal_aarch64.c, cache.S).
IMAGE_SRCS += hal/hal_poll.c
HOST_LIB_SRCS += hal/hal_poll.c hal/host/hal_host.c
