# board/rk3588: Rock 5B class boards booted from U-Boot.
BOARD_CFLAGS += -DBOARD_RK3588=1
BOARD_SRCS += board/rk3588/npu_board.c
