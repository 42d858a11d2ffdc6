#!/bin/sh
# The rk3588 outputs, read back from the files (not from the assembler
# source): arm64 Image header fields per Linux booting.rst /
# HARDWARE.md §B.4, and a FIT image and boot script mkimage lists.
. "$(dirname "$0")/lib.sh"

dir=$ROOT/build/rk3588
make -s --no-print-directory -C "$ROOT" BOARD=rk3588 image >"$OUT" 2>&1 ||
	fail "make BOARD=rk3588 image"

# u64 little-endian at byte offset $2 of file $1
u64() {
	od -A n -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}

img=$dir/Image
size=$(wc -c <"$img")
magic=$(od -A n -t x1 -j 56 -N 4 "$img" | tr -d ' ')
[ "$magic" = "41524d64" ] || fail "magic at 56 is $magic, want 41524d64 (ARM\\x64)"
[ "$(u64 "$img" 8)" -eq 0 ] || fail "text_offset $(u64 "$img" 8), want 0"
image_size=$(u64 "$img" 16)
[ "$image_size" -ge "$size" ] || fail "image_size $image_size < file size $size"
flags=$(u64 "$img" 24)
[ $((flags & 8)) -ne 0 ] || fail "flags $flags: bit 3 (place anywhere) clear"
[ $((flags & 1)) -eq 0 ] || fail "flags $flags: big-endian bit set"
[ $(((flags >> 1) & 3)) -eq 1 ] || fail "flags $flags: page size field not 4K"
# code0 is a B instruction (opcode 0b000101 in bits 31:26).
code0=$(od -A n -t x4 -j 0 -N 4 "$img" | tr -d ' ')
[ $((0x$code0 >> 26)) -eq 5 ] || fail "code0 0x$code0 is not a branch"

mkimage -l "$dir/rkbare.itb" >"$OUT" 2>&1 || fail "mkimage -l rkbare.itb"
expect_line "Type:         Kernel Image"
expect_line "Architecture: AArch64"
expect_line "Load Address: 0x02000000"
expect_line "Entry Point:  0x02000000"
mkimage -l "$dir/boot.scr" >"$OUT" 2>&1 || fail "mkimage -l boot.scr"
expect_line "Image Type:   AArch64 Linux Script"
# The payload is the boot.cmd text: it must boot the Image with the DTB.
grep -aqF 'booti ${kernel_addr_r} - ${fdt_addr_r}' "$dir/boot.scr" ||
	fail "boot.scr does not run booti with kernel_addr_r and fdt_addr_r"
