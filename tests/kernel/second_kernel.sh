#!/bin/sh
# The second kernel (examples/second_kernel): a kernel that is not ours runs
# the library under QEMU, linking only what docs/PORTING.md lists.
#  1. The link: its own objects, librkbare_kernel.a, librkbare_npu_model.a
#     and libgcc, nothing else (the linker map); the archives hold only the
#     files PORTING.md lists (nothing of boot/ or hal/aarch64/); what the
#     archives take from the kernel is in PORTING.md's lists; its sources
#     include no header of boot/ or hal/aarch64/ (nor of a libc: -nostdinc).
#  2. The run: the image's default model gives the image's classes and
#     accuracy; the matmuls are exact, and C is the product this script
#     computes on its own (numpy) from the image's seed.
BOOT_TIMEOUT=${BOOT_TIMEOUT:-30}
. "$(dirname "$0")/../qemu/lib.sh"
CROSS=${CROSS:-aarch64-linux-gnu-}
SK=$ROOT/build/second-kernel
MAP=$SK/second_kernel.map

make -s --no-print-directory -C "$ROOT" BOARD=qemu-virt image example-kernel >/dev/null ||
	fail "make image example-kernel"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$OUT" "$OUT.raw"' EXIT

# ---- 1. the link ----

# link_inputs MAP: every file the link loaded that is not the example's own
# object, the two archives or libgcc, one per line.
link_inputs() {
	sed -n 's/^LOAD //p' "$1" | while IFS= read -r f; do
		case $f in
		build/second-kernel/obj/examples/second_kernel/*.o) ;;
		build/rk3588/librkbare_kernel.a | build/rk3588/librkbare_npu_model.a) ;;
		*/libgcc.a | "linker stubs") ;;
		*) echo "$f" ;;
		esac
	done
}

(cd "$ROOT" && link_inputs "$MAP") > "$tmp/foreign"
[ -s "$tmp/foreign" ] && fail "the second kernel links what docs/PORTING.md does not list: $(cat "$tmp/foreign")"
grep -q '^LOAD build/rk3588/librkbare_npu_model.a' "$MAP" || fail "no librkbare_npu_model.a in the link"
# The check itself: a map with one of the image's objects added must fail.
{ cat "$MAP"; echo "LOAD build/qemu-virt/obj/boot/console.c.o"; } > "$tmp/bad.map"
[ "$(cd "$ROOT" && link_inputs "$tmp/bad.map")" = "build/qemu-virt/obj/boot/console.c.o" ] ||
	fail "the link check does not name an added boot/ object"

# The archives' members: the files PORTING.md's "Files to link" names, and
# the NPU model (sim/) with the load/store decoder.
members() {	# SOURCES...: their object names
	for f in "$@"; do echo "${f##*/}.o"; done | sort -u
}
(cd "$ROOT" && members hal/hal_poll.c drivers/npu/*.c compiler/*.c runtime/*.c \
	board/rk3588/npu_board.c) > "$tmp/klib.ok"
(cd "$ROOT" && members sim/*.c board/qemu-virt/mmio_insn.c board/qemu-virt/mmio_emulate.c) \
	> "$tmp/model.ok"
for lib in kernel npu_model; do
	ok=$tmp/model.ok
	[ "$lib" = kernel ] && ok=$tmp/klib.ok
	"${CROSS}ar" t "$ROOT/build/rk3588/librkbare_$lib.a" | sort > "$tmp/$lib.members"
	extra=$(comm -23 "$tmp/$lib.members" "$ok")
	[ -z "$extra" ] || fail "librkbare_$lib.a holds objects docs/PORTING.md does not list: $extra"
done

# What the archive members the link pulled in take from the kernel: within
# docs/PORTING.md's lists (as tests/kernel/kernel_lib.sh reads them).
sed -n 's/^build\/rk3588\/\(librkbare_[a-z_]*\.a\)(\(.*\))$/\1:\2/p' "$MAP" | sort -u > "$tmp/pulled"
for lib in librkbare_kernel.a librkbare_npu_model.a; do
	"${CROSS}nm" -A "$ROOT/build/rk3588/$lib" | sed "s|^.*/$lib:|$lib:|"
done | awk -v pulled="$tmp/pulled" '
	BEGIN { while ((getline m < pulled) > 0) want[m] = 1 }
	{ split($1, f, ":"); m = f[1] ":" f[2] }
	!(m in want) { next }
	$2 == "U" { u[$3] = 1; next }
	NF == 3 { d[$3] = 1 }
	END { for (s in u) if (!(s in d)) print s }' | sort > "$tmp/taken"
[ -s "$tmp/taken" ] || fail "no symbol taken from the kernel: the map was not read"
sed -n '/<!-- kernel-lib-symbols -->/,/<!-- end -->/p; /<!-- npu-model-symbols -->/,/<!-- end -->/p' \
	"$ROOT/docs/PORTING.md" | grep -o '`[a-z_0-9]*`' | tr -d '`' | sort -u > "$tmp/documented"
extra=$(comm -23 "$tmp/taken" "$tmp/documented")
[ -z "$extra" ] || fail "the library takes from the kernel what docs/PORTING.md does not list: $extra"

# Headers: the example's own and the library's (-nostdinc leaves only the
# compiler's stdint.h & co besides, which -MMD does not list).
bad=$(cat "$SK"/obj/examples/second_kernel/*.d | tr ' \\' '\n\n' |
	grep -e '^boot/' -e '^hal/aarch64/' | sort -u)
[ -z "$bad" ] || fail "the second kernel includes $bad"
echo "second_kernel: links its own objects, librkbare_kernel.a, librkbare_npu_model.a and" \
	"libgcc only; takes $(wc -l < "$tmp/taken") symbols from the kernel, all in docs/PORTING.md"

# ---- 2. the run, against the image's ----

/usr/bin/python3 - > "$tmp/checksum" <<'PY' || fail "numpy reference"
# The image's matmul demo (boot/app_npu.c): A then B from one xorshift32
# stream seeded 0x2545F491, C = A B in int32; FNV-1a over C's bytes.
import numpy as np
M, K, N, s = 16, 64, 96, 0x2545F491
vals = []
for _ in range(M * K + K * N):
    s ^= (s << 13) & 0xffffffff
    s ^= s >> 17
    s ^= (s << 5) & 0xffffffff
    vals.append(s & 0xff)
v = np.array(vals, dtype=np.uint8).view(np.int8).astype(np.int32)
c = v[:M * K].reshape(M, K) @ v[M * K:].reshape(K, N)
h = 0x811c9dc5
for byte in c.astype('<i4').tobytes():
    h = ((h ^ byte) * 0x01000193) & 0xffffffff
print("0x%08x" % h)
PY

run_qemu "$IMG_DIR/Image" ""
expect_status 0
cp "$OUT" "$tmp/image.out"
grep -e '^model: sample [0-9]*: class' -e '^model: accuracy' "$tmp/image.out" > "$tmp/want"
[ "$(wc -l < "$tmp/want")" -eq 9 ] || fail "the image printed no eight classes and accuracy"
header=$(sed -n "s/^\(model: '.*': [0-9]* ops, [0-9]* NPU tasks\).*/\1/p" "$tmp/image.out")
[ -n "$header" ] || fail "the image printed no model line"

run_qemu "$SK/second_kernel.elf" ""
expect_status 0
expect_line "$header"
while IFS= read -r line; do
	expect_line "$line"
done < "$tmp/want"
for job in "core 0" "core 1" "core 2" "cores 0-2"; do
	grep -q "^app: $job: int8 matmul 16x64x96 in [0-9]* us: exact" "$tmp/image.out" ||
		fail "the image's $job matmul is not exact"
	expect_line "matmul: $job: int8 16x64x96: exact, C checksum $(cat "$tmp/checksum")"
done
expect_line "second-kernel: done"
echo "second_kernel: under QEMU the image's classes and $(grep 'model: accuracy' "$OUT" |
	sed 's/model: //'); matmuls on cores 0, 1, 2 and 0-2 exact, C as numpy's"
