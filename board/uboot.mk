# U-Boot payloads next to the Image, the same rules for every board
# (docs/BOOT.md): a FIT image for bootm whose kernel loads and enters at the
# board's LINK_ADDR (link.h), with the board DTB in it when DTB=path/to.dtb
# is given, and board/$(BOARD)/boot.cmd as a boot script.
UBOOT_LOAD_ADDR := $(shell sed -n 's/^\#define LINK_ADDR[[:space:]]*//p' board/$(BOARD)/link.h)
DTB ?=
# Rebuild the FIT when DTB= changes, not only when the files do.
UBOOT_DTB_STAMP := $(IMG_DIR)/.fit-dtb
$(shell mkdir -p $(IMG_DIR) && { echo '$(DTB)' | cmp -s - $(UBOOT_DTB_STAMP) || \
	echo '$(DTB)' >$(UBOOT_DTB_STAMP); })
$(IMG_DIR)/rkbare.itb: $(IMG_DIR)/Image $(DTB) $(UBOOT_DTB_STAMP)
	$(MKIMAGE) -f auto -A arm64 -O linux -T kernel -C none \
		-a $(UBOOT_LOAD_ADDR) -e $(UBOOT_LOAD_ADDR) -n rkbare \
		-d $< $(if $(DTB),-b $(DTB)) $@ >/dev/null
$(IMG_DIR)/boot.scr: board/$(BOARD)/boot.cmd
	@mkdir -p $(dir $@)
	$(MKIMAGE) -A arm64 -O linux -T script -C none -n rkbare -d $< $@ >/dev/null
BOARD_OUTPUTS += $(IMG_DIR)/rkbare.itb $(IMG_DIR)/boot.scr
