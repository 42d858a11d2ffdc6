# U-Boot boot script for rkbare on QEMU virt (mkimage -T script → boot.scr),
# the qemu-virt twin of board/rk3588/boot.cmd: standard boot finds it on a
# virtio disk. The DTB is the one QEMU made and U-Boot runs on.
echo "rkbare: loading Image from ${devtype} ${devnum}:${distro_bootpart}"
load ${devtype} ${devnum}:${distro_bootpart} ${kernel_addr_r} Image
# booti copies ${bootargs} into /chosen/bootargs, where rkbare reads them.
setenv bootargs "${rkbare_args}"
booti ${kernel_addr_r} - ${fdtcontroladdr}
