#!/bin/sh
# make kernel-lib: librkbare_kernel.a needs exactly the symbols
# docs/PORTING.md lists and links against a stub that defines only them,
# every object pulled in; the NPU model library on top of it likewise.
set -eu
cd "$(dirname "$0")/../.."
CROSS=${CROSS:-aarch64-linux-gnu-}
make -s --no-print-directory BOARD=rk3588 kernel-lib >/dev/null
lib=build/rk3588/librkbare_kernel.a
model=build/rk3588/librkbare_npu_model.a
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Undefined symbols of the archives together that none of them defines.
needs() {
	"${CROSS}nm" "$@" | awk '$1 == "U" { print $2 }' | sort -u > "$tmp/u"
	"${CROSS}nm" --defined-only "$@" | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/d"
	comm -23 "$tmp/u" "$tmp/d"
}

# The backquoted names between <!-- NAME --> and the next <!-- end -->.
documented() {
	sed -n "/<!-- $1 -->/,/<!-- end -->/p" docs/PORTING.md | grep -o '`[a-z_0-9]*`' |
		tr -d '`' | grep -v '^hal_read32$\|^hal_write32$' | sort -u
}

check() {	# WHAT NEED DOC
	if ! cmp -s "$2" "$3"; then
		echo "kernel_lib: $1: the library needs (<) / docs/PORTING.md lists (>):"
		diff "$2" "$3" | grep '^[<>]' || true
		fail=1
	fi
}

# Link with only the documented symbols defined; every object of the
# archives is pulled in, so any other undefined reference fails the link.
link() {	# NAME SYMBOLS ARCHIVES...
	name=$1 syms=$2
	shift 2
	{ awk '{ print "void " $1 "(void) {}" }' "$syms"; echo 'void _start(void) {}'; } \
		> "$tmp/$name.c"
	"${CROSS}gcc" -w -ffreestanding -fno-builtin -c "$tmp/$name.c" -o "$tmp/$name.o"
	if ! "${CROSS}gcc" -nostdlib -static -Wl,-e,_start -o "$tmp/$name.elf" "$tmp/$name.o" \
		-Wl,--whole-archive "$@" -Wl,--no-whole-archive -lgcc 2> "$tmp/$name.err"; then
		echo "kernel_lib: $name: links only with more than the documented symbols:"
		grep -o "undefined reference to \`[^']*'" "$tmp/$name.err" | sort -u | head -20
		fail=1
	fi
}

needs "$lib" > "$tmp/need"
documented kernel-lib-symbols > "$tmp/doc"
check librkbare_kernel.a "$tmp/need" "$tmp/doc"
link kernel "$tmp/doc" "$lib"

needs "$lib" "$model" > "$tmp/need2"
{ cat "$tmp/doc"; documented npu-model-symbols; } | sort -u > "$tmp/doc2"
check "librkbare_npu_model.a (with the kernel library)" "$tmp/need2" "$tmp/doc2"
link model "$tmp/doc2" "$lib" "$model"

[ "$fail" -eq 0 ] || exit 1
echo "kernel_lib: librkbare_kernel.a needs $(wc -l < "$tmp/doc") symbols, the NPU model" \
	"$(($(wc -l < "$tmp/doc2") - $(wc -l < "$tmp/doc"))) more, as docs/PORTING.md lists; both link"
