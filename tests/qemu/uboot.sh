#!/bin/sh
# Through a real U-Boot: Debian's u-boot-qemu (2023.01, qemu_arm64) on virt
# with virtualization=on hands the payload over at EL2, with the MMU and
# caches as U-Boot leaves them, as a Rock 5B's U-Boot does.
#  - booti: the Image, put in RAM before U-Boot starts (QEMU's generic
#    loader), at kernel_addr_r, at two other 2 MiB-aligned addresses and at
#    an unaligned one (booti moves it up to a 2 MiB boundary; the image then
#    moves itself to its link address), with U-Boot's own DTB and bootargs
#    set at the prompt;
#  - bootm of rkbare.itb, the FIT built by the rk3588 rules;
#  - boot.scr, found by U-Boot's standard boot on a virtio disk (a FAT
#    partition made with sfdisk and mtools), loading the Image from it.
# Every run must report EL2 entry, the DTB U-Boot passed and the bootargs it
# set; the model runs must print the sample lines and accuracy that the
# same image prints booted by QEMU -kernel (make run).
. "$(dirname "$0")/lib.sh"
UBOOT=/usr/lib/u-boot/qemu_arm64/u-boot.bin
[ -f "$UBOOT" ] || fail "no $UBOOT (scripts/setup.sh installs u-boot-qemu)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$OUT" "$OUT.raw"' EXIT
BOOT_TIMEOUT=90
# U-Boot's qemu_arm64 environment: kernel_addr_r 0x40400000
KERNEL_ADDR_R=0x40400000
FIT_ADDR=0x48000000

# The reference: the same image and model booted by QEMU -kernel.
run_qemu "$IMG_DIR/Image" "rkbare.app=model"
expect_status 0
grep -E '^model: (sample|accuracy)' "$OUT" > "$tmp/want"
[ -s "$tmp/want" ] || fail "make run's model printed no samples"

# uboot LABEL "QEMU OPTIONS" [--cmd LINE]...: boots U-Boot, types the
# lines at its prompt; sets STATUS, the console in $OUT.
uboot() {
	label=$1
	opts=$2
	shift 2
	# shellcheck disable=SC2086
	/usr/bin/python3 "$ROOT/tests/qemu/uboot_console.py" "$OUT.raw" "$BOOT_TIMEOUT" "$@" -- \
		"$QEMU" $QEMU_FLAGS -machine virtualization=on -bios "$UBOOT" $opts
	STATUS=$?
	tr -d '\r' < "$OUT.raw" > "$OUT"
	rm -f "$OUT.raw"
	[ "$STATUS" -ne 124 ] || fail "$label: no exit within $BOOT_TIMEOUT s"
	[ "$STATUS" -ne 125 ] || fail "$label: U-Boot gave no prompt"
	[ "$STATUS" -ne 126 ] || fail "$label: U-Boot's boot command failed"
}

# expect_handover LABEL BOOTARGS: EL2 entry, U-Boot's DTB, its bootargs.
expect_handover() {
	expect_status 0
	expect_line "exception level: EL1 (entered at EL2)"
	dtb=$(sed -n 's/.*Loading Device Tree to 0*\([0-9a-f]*\),.*/\1/p' "$OUT" | tail -1)
	[ -n "$dtb" ] || fail "$1: U-Boot did not say where it put the DTB"
	expect_line "dtb: 0x$dtb,"
	expect_line "bootargs: \"$2\""
}

expect_model() {
	while IFS= read -r line; do
		expect_line "$line"
	done < "$tmp/want"
}

loader() {	# FILE ADDR: QEMU's generic loader puts FILE at ADDR before U-Boot runs
	echo "-device loader,file=$1,addr=$2,force-raw=on"
}

# booti at kernel_addr_r, the model
uboot "booti" "$(loader "$IMG_DIR/Image" $KERNEL_ADDR_R)" \
	--cmd "setenv bootargs rkbare.app=model" --cmd 'booti ${kernel_addr_r} - ${fdtcontroladdr}'
expect_line "kernel_addr_r"
expect_handover "booti" "rkbare.app=model"
expect_model
echo "uboot: booti at kernel_addr_r ($KERNEL_ADDR_R): EL2 entry, U-Boot's DTB and bootargs, the model as make run"

# booti at other addresses, the matmul demo (quicker); 0x40601000 is not
# 2 MiB aligned: booti moves it to 0x40800000
for addr in 0x40800000 0x41000000 0x40601000; do
	uboot "booti at $addr" "$(loader "$IMG_DIR/Image" $addr)" \
		--cmd "setenv bootargs rkbare.app=matmul" --cmd "booti $addr - \${fdtcontroladdr}"
	expect_handover "booti at $addr" "rkbare.app=matmul"
	expect_line "app: all NPU results exact"
	echo "uboot: booti at $addr: runs (matmul demo exact)"
done

# bootm of the FIT. It holds no DTB (QEMU's is U-Boot's), so its one
# configuration is named: U-Boot's default choice looks for a configuration
# whose DTB matches the board and finds none.
uboot "bootm" "$(loader "$IMG_DIR/rkbare.itb" $FIT_ADDR)" \
	--cmd "setenv bootargs rkbare.app=model" --cmd "bootm $FIT_ADDR#conf-1 - \${fdtcontroladdr}"
expect_handover "bootm" "rkbare.app=model"
expect_model
echo "uboot: bootm of rkbare.itb: the model as make run"

# boot.scr by standard boot from a virtio disk
PATH=$PATH:/usr/sbin:/sbin	# sfdisk
truncate -s 64M "$tmp/disk.img"
echo 'start=2048, type=c' | sfdisk -q "$tmp/disk.img" || fail "sfdisk"
mformat -i "$tmp/disk.img@@1M" -F :: || fail "mformat"
mcopy -i "$tmp/disk.img@@1M" "$IMG_DIR/Image" "$IMG_DIR/boot.scr" :: || fail "mcopy"
uboot "boot.scr" "-drive if=none,file=$tmp/disk.img,format=raw,id=disk \
	-device virtio-blk-device,drive=disk" \
	--cmd "setenv rkbare_args rkbare.app=model" --cmd "boot"
expect_line "rkbare: loading Image from virtio 0:1"
expect_handover "boot.scr" "rkbare.app=model"
expect_model
echo "uboot: boot.scr from a virtio disk by standard boot: the model as make run"

# A DTB where the image must run (U-Boot told to leave it in place, inside
# the link range; the Image loaded above it, so U-Boot's own overlap check
# passes): the image refuses on the early UART instead of overwriting it,
# and parks (the run ends by timeout).
BOOT_TIMEOUT=20
/usr/bin/python3 "$ROOT/tests/qemu/uboot_console.py" "$OUT.raw" "$BOOT_TIMEOUT" \
	--cmd 'fdt addr ${fdtcontroladdr}' --cmd 'fdt move ${fdtcontroladdr} 0x40300000 0x100000' \
	--cmd 'setenv fdt_high 0xffffffffffffffff' --cmd "booti 0x41000000 - 0x40300000" -- \
	"$QEMU" $QEMU_FLAGS -machine virtualization=on -bios "$UBOOT" \
	$(loader "$IMG_DIR/Image" 0x41000000)
tr -d '\r' < "$OUT.raw" > "$OUT"
expect_line "rkbare: the DTB lies where the image must run"
expect_no_line "rkbare on qemu-virt"
echo "uboot: a DTB inside the image's link range is refused on the early UART"
