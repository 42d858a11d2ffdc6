# board/rk3588: Rock 5B class boards booted from U-Boot.
BOARD_CFLAGS += -DBOARD_RK3588=1
BOARD_SRCS += board/rk3588/npu_board.c
# Board glue and the UART2 console.
BOARD_SRCS += board/rk3588/board.c drivers/uart/dw8250.c

# U-Boot payloads next to the Image (docs/BOOT.md): a FIT image for bootm,
# with the board DTB in it when DTB=path/to/rk3588-rock-5b.dtb is given, and
# a boot script. Load/entry = LINK_ADDR of link.h (U-Boot's kernel_addr_r).
RK3588_LOAD_ADDR := $(shell sed -n 's/^\#define LINK_ADDR[[:space:]]*//p' board/rk3588/link.h)
DTB ?=
# Rebuild the FIT when DTB= changes, not only when the files do.
RK3588_DTB_STAMP := $(IMG_DIR)/.fit-dtb
$(shell mkdir -p $(IMG_DIR) && { echo '$(DTB)' | cmp -s - $(RK3588_DTB_STAMP) || \
	echo '$(DTB)' >$(RK3588_DTB_STAMP); })
$(IMG_DIR)/rkbare.itb: $(IMG_DIR)/Image $(DTB) $(RK3588_DTB_STAMP)
	$(MKIMAGE) -f auto -A arm64 -O linux -T kernel -C none \
		-a $(RK3588_LOAD_ADDR) -e $(RK3588_LOAD_ADDR) -n rkbare \
		-d $< $(if $(DTB),-b $(DTB)) $@ >/dev/null
$(IMG_DIR)/boot.scr: board/rk3588/boot.cmd
	@mkdir -p $(dir $@)
	$(MKIMAGE) -A arm64 -O linux -T script -C none -n rkbare -d $< $@ >/dev/null
BOARD_OUTPUTS += $(IMG_DIR)/rkbare.itb $(IMG_DIR)/boot.scr
