# board/rk3588: Rock 5B class boards booted from U-Boot.
BOARD_CFLAGS += -DBOARD_RK3588=1
BOARD_SRCS += board/rk3588/npu_board.c
# Board glue and the UART2 console.
BOARD_SRCS += board/rk3588/board.c drivers/uart/dw8250.c

# U-Boot payloads: rkbare.itb (FIT, DTB= puts the board DTB in it) and
# boot.scr from boot.cmd.
include board/uboot.mk
