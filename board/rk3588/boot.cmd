# U-Boot boot script for rkbare on a Rock 5B (mkimage -T script → boot.scr).
# U-Boot's standard boot finds boot.scr on the SD card (mmc1), then eMMC.
# Expects Image and the board DTB on the first partition of the same device.
echo "rkbare: loading Image and DTB from ${devtype} ${devnum}:${distro_bootpart}"
load ${devtype} ${devnum}:${distro_bootpart} ${kernel_addr_r} Image
load ${devtype} ${devnum}:${distro_bootpart} ${fdt_addr_r} rk3588-rock-5b.dtb
# booti copies ${bootargs} into /chosen/bootargs, where rkbare reads them.
setenv bootargs "${rkbare_args}"
booti ${kernel_addr_r} - ${fdt_addr_r}
