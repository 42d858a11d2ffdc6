/* SPDX-License-Identifier: MIT */
/*
 * boot/fdt.c against independent references: blobs are compiled from
 * .dts text by dtc at test time (plus one QEMU generated for its virt
 * machine), and every value our reader returns is compared with libfdt's
 * reading of the same blob and with the numbers written in the source.
 * Corrupted blobs must be rejected (and libfdt must agree they are bad);
 * random mutations must never make the reader step outside the buffer
 * (ASan).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libfdt.h>

#include "boot/fdt.h"

#define MAX_RANGES	16
#define FUZZ_ROUNDS	3000
#define FUZZ_SEED	0x5eed1234u

static const char qemu_like_dts[] =
	"/dts-v1/;\n"
	"/ {\n"
	"	#address-cells = <2>;\n"
	"	#size-cells = <2>;\n"
	"	compatible = \"linux,dummy-virt\";\n"
	"	chosen {\n"
	"		bootargs = \"rkbare.selftest=crash x=\\\"a b\\\"\";\n"
	"		stdout-path = \"/pl011@9000000\";\n"
	"	};\n"
	"	memory@40000000 {\n"
	"		device_type = \"memory\";\n"
	"		reg = <0x0 0x40000000 0x0 0x40000000>;\n"
	"	};\n"
	"	pl011@9000000 {\n"
	"		compatible = \"arm,pl011\", \"arm,primecell\";\n"
	"		reg = <0x0 0x9000000 0x0 0x1000>;\n"
	"	};\n"
	"	soc {\n"
	"		#address-cells = <1>;\n"
	"		bus@1000 { leaf { value = <0xdeadbeef>; }; };\n"
	"	};\n"
	"};\n";

/* 32-bit cells, two memory nodes (one with two banks), RK3588-like. */
static const char two_banks_dts[] =
	"/dts-v1/;\n"
	"/memreserve/ 0x00000000 0x00200000;\n"
	"/ {\n"
	"	#address-cells = <1>;\n"
	"	#size-cells = <1>;\n"
	"	memory@200000 {\n"
	"		device_type = \"memory\";\n"
	"		reg = <0x00200000 0x08000000 0x10000000 0x20000000>;\n"
	"	};\n"
	"	sram@ff001000 { reg = <0xff001000 0xef000>; };\n"
	"	memory@f0000000 {\n"
	"		device_type = \"memory\";\n"
	"		reg = <0xe0000000 0x00100000>;\n"
	"	};\n"
	"};\n";

/* No #address-cells/#size-cells at the root: defaults 2 and 1. */
static const char default_cells_dts[] =
	"/dts-v1/;\n"
	"/ {\n"
	"	memory { device_type = \"memory\"; reg = <0x1 0x80000000 0x40000000>; };\n"
	"	chosen { bootargs = <1>; };\n"
	"};\n";

static const char no_memory_dts[] =
	"/dts-v1/;\n"
	"/ { #address-cells = <1>; #size-cells = <1>; cpus { }; };\n";

struct blob {
	uint8_t *data;
	size_t size;
};

/* Compile dts source with dtc into an exactly sized heap buffer. */
static struct blob compile_dts(const char *src)
{
	char dts[] = "/tmp/test_fdt_XXXXXX";
	char cmd[256], dtb[64];
	struct blob b = { 0 };
	FILE *f;
	int fd = mkstemp(dts);
	long len;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, src, strlen(src)), (ssize_t)strlen(src));
	close(fd);
	snprintf(dtb, sizeof(dtb), "%s.dtb", dts);
	snprintf(cmd, sizeof(cmd), "dtc -q -I dts -O dtb -o %s %s", dtb, dts);
	assert_int_equal(system(cmd), 0);
	f = fopen(dtb, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	b.size = (size_t)len;
	b.data = malloc(b.size);
	assert_non_null(b.data);
	assert_int_equal(fread(b.data, 1, b.size, f), b.size);
	fclose(f);
	unlink(dts);
	unlink(dtb);
	return b;
}

/* The RAM ranges as libfdt reads them (device_type = "memory" children of
 * the root, root cell sizes). */
static unsigned int libfdt_memory(const void *fdt, struct dtb_range *r, unsigned int max)
{
	int ac = fdt_address_cells(fdt, 0), sc = fdt_size_cells(fdt, 0);
	unsigned int count = 0;
	int node;

	fdt_for_each_subnode(node, fdt, 0) {
		const char *type = fdt_getprop(fdt, node, "device_type", NULL);
		const fdt32_t *reg;
		int len, i;

		if (!type || strcmp(type, "memory"))
			continue;
		reg = fdt_getprop(fdt, node, "reg", &len);
		assert_non_null(reg);
		for (i = 0; i + ac + sc <= len / 4; i += ac + sc) {
			uint64_t base = fdt32_to_cpu(reg[i]), size = fdt32_to_cpu(reg[i + ac]);

			if (ac == 2)
				base = base << 32 | fdt32_to_cpu(reg[i + 1]);
			if (sc == 2)
				size = size << 32 | fdt32_to_cpu(reg[i + ac + 1]);
			assert_true(count < max);
			r[count].base = base;
			r[count].size = size;
			count++;
		}
	}
	return count;
}

static void assert_memory_matches_libfdt(const struct blob *b, unsigned int want_count)
{
	struct dtb_range ours[MAX_RANGES], ref[MAX_RANGES];
	unsigned int count, ref_count, i;
	struct dtb dt;

	assert_int_equal(fdt_check_full(b->data, b->size), 0);
	assert_int_equal(dtb_open(&dt, b->data, b->size), 0);
	assert_int_equal(dtb_memory(&dt, ours, MAX_RANGES, &count), 0);
	ref_count = libfdt_memory(b->data, ref, MAX_RANGES);
	assert_int_equal(count, ref_count);
	assert_int_equal(count, want_count);
	for (i = 0; i < count; i++) {
		assert_int_equal(ours[i].base, ref[i].base);
		assert_int_equal(ours[i].size, ref[i].size);
	}
}

static void test_qemu_like_tree(void **state)
{
	struct blob b = compile_dts(qemu_like_dts);
	struct dtb_range r[MAX_RANGES];
	const char *args;
	unsigned int count;
	struct dtb dt;

	assert_memory_matches_libfdt(&b, 1);
	assert_int_equal(dtb_open(&dt, b.data, b.size), 0);
	assert_null(dt.error);
	assert_int_equal(dt.size, b.size);
	/* The numbers written in the source. */
	assert_int_equal(dtb_memory(&dt, r, MAX_RANGES, &count), 0);
	assert_int_equal(r[0].base, 0x40000000);
	assert_int_equal(r[0].size, 0x40000000);
	assert_int_equal(dtb_bootargs(&dt, &args), 0);
	assert_string_equal(args, "rkbare.selftest=crash x=\"a b\"");
	assert_string_equal(args, fdt_getprop(b.data, fdt_path_offset(b.data, "/chosen"),
					      "bootargs", NULL));
	free(b.data);
}

static void test_two_banks_32bit_cells(void **state)
{
	struct blob b = compile_dts(two_banks_dts);
	struct dtb_range r[MAX_RANGES];
	unsigned int count;
	struct dtb dt;

	assert_memory_matches_libfdt(&b, 3);
	assert_int_equal(dtb_open(&dt, b.data, b.size), 0);
	assert_int_equal(dtb_memory(&dt, r, MAX_RANGES, &count), 0);
	assert_int_equal(r[0].base, 0x00200000);
	assert_int_equal(r[0].size, 0x08000000);
	assert_int_equal(r[1].base, 0x10000000);
	assert_int_equal(r[1].size, 0x20000000);
	assert_int_equal(r[2].base, 0xe0000000);
	assert_int_equal(r[2].size, 0x00100000);
	/* Room for fewer entries: filled up to max, count still says 3. */
	assert_int_equal(dtb_memory(&dt, r, 1, &count), 0);
	assert_int_equal(count, 3);
	assert_int_equal(r[0].base, 0x00200000);
	/* No /chosen at all. */
	{
		const char *args;

		assert_int_equal(dtb_bootargs(&dt, &args), -ENOENT);
	}
	free(b.data);
}

static void test_default_cells_and_bad_bootargs(void **state)
{
	struct blob b = compile_dts(default_cells_dts);
	struct dtb_range r[MAX_RANGES];
	const char *args;
	unsigned int count;
	struct dtb dt;

	assert_memory_matches_libfdt(&b, 1);
	assert_int_equal(dtb_open(&dt, b.data, b.size), 0);
	assert_int_equal(dtb_memory(&dt, r, MAX_RANGES, &count), 0);
	assert_int_equal(r[0].base, 0x180000000ull);
	assert_int_equal(r[0].size, 0x40000000);
	/* bootargs = <1> is four bytes 00 00 00 01: not a string. */
	assert_int_equal(dtb_bootargs(&dt, &args), -EINVAL);
	free(b.data);
}

static void test_no_memory_node(void **state)
{
	struct blob b = compile_dts(no_memory_dts);
	struct dtb_range r[MAX_RANGES];
	unsigned int count;
	struct dtb dt;

	assert_int_equal(dtb_open(&dt, b.data, b.size), 0);
	assert_int_equal(dtb_memory(&dt, r, MAX_RANGES, &count), -ENOENT);
	assert_int_equal(count, 0);
	free(b.data);
}

static void test_paths_and_props_match_libfdt(void **state)
{
	static const char *const paths[] = {
		"/", "/chosen", "/memory", "/memory@40000000", "/memory@40000001",
		"/pl011", "/pl011@9000000", "/soc", "/soc/bus", "/soc/bus@1000/leaf",
		"/soc/leaf", "/nope", "/chosen/", "//chosen", "/soc/bus@1000/leaf/x",
	};
	static const struct { const char *path, *prop; } props[] = {
		{ "/", "compatible" }, { "/", "#size-cells" }, { "/chosen", "stdout-path" },
		{ "/pl011@9000000", "compatible" }, { "/pl011@9000000", "reg" },
		{ "/soc/bus@1000/leaf", "value" }, { "/soc", "value" }, { "/chosen", "reg" },
	};
	struct blob b = compile_dts(qemu_like_dts);
	struct dtb dt;
	unsigned int i;

	assert_int_equal(dtb_open(&dt, b.data, b.size), 0);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		int ours = dtb_find_node(&dt, paths[i]);
		int ref = fdt_path_offset(b.data, paths[i]);

		if (ref < 0) {
			assert_int_equal(ours, -ENOENT);
		} else {
			/* Both are offsets inside the structure block. */
			assert_int_equal(ours, ref);
		}
	}
	for (i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		int node = dtb_find_node(&dt, props[i].path);
		const void *value, *ref;
		uint32_t len;
		int ref_len;

		assert_true(node >= 0);
		ref = fdt_getprop(b.data, fdt_path_offset(b.data, props[i].path),
				  props[i].prop, &ref_len);
		if (!ref) {
			assert_int_equal(dtb_get_prop(&dt, node, props[i].prop, &value, &len),
					 -ENOENT);
			continue;
		}
		assert_int_equal(dtb_get_prop(&dt, node, props[i].prop, &value, &len), 0);
		assert_int_equal(len, (uint32_t)ref_len);
		assert_ptr_equal(value, ref);
		assert_memory_equal(value, ref, len);
	}
	{
		uint32_t v;

		assert_int_equal(dtb_get_u32(&dt, dtb_find_node(&dt, "/soc/bus/leaf"), "value", &v), 0);
		assert_int_equal(v, 0xdeadbeef);
		assert_int_equal(dtb_get_u32(&dt, dtb_find_node(&dt, "/pl011"), "reg", &v), -EINVAL);
	}
	free(b.data);
}

/* A blob QEMU itself generated for virt with 1 GiB (third-party writer). */
static void test_qemu_generated_dtb(void **state)
{
	char path[] = "/tmp/test_fdt_qemu_XXXXXX";
	char cmd[256];
	struct blob b;
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "qemu-system-aarch64 -machine virt,dumpdtb=%s -cpu cortex-a76 -m 1G "
		 "-nographic -nic none >/dev/null 2>&1", path);
	if (system(cmd) != 0) {
		unlink(path);
		skip();
	}
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	b.size = (size_t)ftell(f);
	rewind(f);
	b.data = malloc(b.size);
	assert_non_null(b.data);
	assert_int_equal(fread(b.data, 1, b.size, f), b.size);
	fclose(f);
	unlink(path);

	assert_memory_matches_libfdt(&b, 1);
	{
		struct dtb_range r[MAX_RANGES];
		unsigned int count;
		struct dtb dt;

		assert_int_equal(dtb_open(&dt, b.data, b.size), 0);
		assert_int_equal(dtb_memory(&dt, r, MAX_RANGES, &count), 0);
		/* HARDWARE.md §B.5: RAM at 0x40000000, size from -m. */
		assert_int_equal(r[0].base, 0x40000000);
		assert_int_equal(r[0].size, 1ull << 30);
	}
	free(b.data);
}

/* ---- corrupted blobs ---- */

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

enum corruption {
	BAD_MAGIC, NEW_LAST_COMP, TOTALSIZE_OVER_BUFFER,
	TOTALSIZE_TINY, STRUCT_OFF_OUTSIDE, STRUCT_OFF_UNALIGNED,
	STRUCT_SIZE_OVERFLOW, STRINGS_OUTSIDE, RSVMAP_UNALIGNED,
	RSVMAP_UNTERMINATED, BAD_TOKEN, NO_END_TOKEN, PROP_NAME_OUTSIDE,
	PROP_LEN_HUGE, NODE_NAME_UNTERMINATED, EXTRA_END_NODE, CORRUPTION_COUNT
};

/* Each corruption and the reason dtb_open() must give for it. */
static const struct {
	const char *name;
	const char *reason;
} corruption_info[] = {
	{ "bad magic", "bad magic (want 0xd00dfeed)" },
	{ "last_comp_version 18", "last compatible version newer than 17" },
	{ "totalsize > buffer", "totalsize larger than the buffer" },
	{ "totalsize < header", "totalsize smaller than the header" },
	{ "off_dt_struct outside", "structure block outside the blob" },
	{ "off_dt_struct unaligned", "structure block not 4-byte aligned" },
	{ "size_dt_struct wraps", "structure block outside the blob" },
	{ "strings outside", "strings block outside the blob" },
	{ "rsvmap unaligned", "memory reservation block not 8-byte aligned" },
	{ "rsvmap unterminated", "memory reservation list not terminated inside the blob" },
	{ "bad token", "unknown token in the structure block" },
	{ "no END token", "structure block ends without an END token" },
	{ "prop nameoff outside", "property name outside the strings block" },
	{ "prop len huge", "property value runs past the structure block" },
	{ "node name unterminated", "node name not terminated inside the structure block" },
	{ "extra END_NODE", "END_NODE without a matching BEGIN_NODE" },
};

/* Apply one corruption; returns the buffer size to offer the readers. */
static size_t corrupt(uint8_t *d, size_t size, enum corruption c)
{
	uint32_t off_struct = fdt_off_dt_struct(d), size_struct = fdt_size_dt_struct(d);
	/* libfdt offsets are relative to the structure block. */
	uint8_t *chosen = d + off_struct + fdt_path_offset(d, "/chosen");
	uint8_t *prop = d + off_struct + fdt_first_property_offset(d, fdt_path_offset(d, "/chosen"));

	switch (c) {
	case BAD_MAGIC:
		put_be32(d, 0xd00dfeee);
		break;
	case NEW_LAST_COMP:
		put_be32(d + 24, 18);
		break;
	case TOTALSIZE_OVER_BUFFER:
		return size - 1;
	case TOTALSIZE_TINY:
		put_be32(d + 4, 16);
		break;
	case STRUCT_OFF_OUTSIDE:
		put_be32(d + 8, ((uint32_t)size + 3) & ~3u);
		break;
	case STRUCT_OFF_UNALIGNED:
		put_be32(d + 8, off_struct + 2);
		break;
	case STRUCT_SIZE_OVERFLOW:
		put_be32(d + 36, 0xfffffffc);
		break;
	case STRINGS_OUTSIDE:
		put_be32(d + 32, (uint32_t)size);
		break;
	case RSVMAP_UNALIGNED:
		put_be32(d + 16, fdt_off_mem_rsvmap(d) + 4);
		break;
	case RSVMAP_UNTERMINATED:
		/* Point the reservation map at the non-zero structure block. */
		put_be32(d + 16, off_struct);
		break;
	case BAD_TOKEN:
		/* The token after the root's BEGIN_NODE + empty name. */
		put_be32(d + off_struct + 8, 0x7);
		break;
	case NO_END_TOKEN:
		put_be32(d + 36, size_struct - 4);
		break;
	case PROP_NAME_OUTSIDE:
		put_be32(prop + 8, fdt_size_dt_strings(d) + 100);
		break;
	case PROP_LEN_HUGE:
		put_be32(prop + 4, 0x7ffffff0);
		break;
	case NODE_NAME_UNTERMINATED:
		/* No NUL from "chosen" to the end of the structure block. */
		memset(chosen + 4, 'X', (size_t)(d + off_struct + size_struct - (chosen + 4)));
		break;
	case EXTRA_END_NODE:
		/* Replace the final END with END_NODE: depth goes negative. */
		put_be32(d + off_struct + size_struct - 4, 2);
		break;
	default:
		break;
	}
	return size;
}

static void test_corrupted_blobs_rejected(void **state)
{
	struct blob good = compile_dts(qemu_like_dts);
	unsigned int c;

	assert_int_equal(sizeof(corruption_info) / sizeof(corruption_info[0]), CORRUPTION_COUNT);
	for (c = 0; c < CORRUPTION_COUNT; c++) {
		uint8_t *d = malloc(good.size);
		size_t avail;
		struct dtb dt;
		int ret;

		memcpy(d, good.data, good.size);
		avail = corrupt(d, good.size, c);
		ret = dtb_open(&dt, d, avail);
		if (ret != -EINVAL)
			fail_msg("corruption '%s' accepted", corruption_info[c].name);
		assert_string_equal(dt.error, corruption_info[c].reason);
		assert_null(dt.blob);
		/* libfdt, the reference reader, must find the blob bad too. */
		if (fdt_check_full(d, avail) == 0)
			fail_msg("libfdt accepts corruption '%s'", corruption_info[c].name);
		free(d);
	}
	free(good.data);
}

static void test_bad_buffers_rejected(void **state)
{
	struct blob b = compile_dts(qemu_like_dts);
	uint8_t *shifted = malloc(b.size + 4);
	struct dtb dt;

	assert_int_equal(dtb_open(&dt, NULL, 4096), -EINVAL);
	/* Version 16 is valid (libfdt reads it) but lacks size_dt_struct,
	 * which the reader relies on: refused, with a reason. */
	put_be32(b.data + 20, 16);
	assert_int_equal(dtb_open(&dt, b.data, b.size), -EINVAL);
	assert_string_equal(dt.error, "version older than 17");
	put_be32(b.data + 20, 17);
	assert_int_equal(dtb_open(&dt, b.data, b.size), 0);
	assert_int_equal(dtb_open(&dt, b.data, 39), -EINVAL);
	assert_int_equal(dtb_open(&dt, b.data, 0), -EINVAL);
	memcpy(shifted + 2, b.data, b.size);
	assert_int_equal(dtb_open(&dt, shifted + 2, b.size), -EINVAL);
	assert_string_equal(dt.error, "blob not 4-byte aligned");
	/* A rejected handle answers nothing. */
	assert_int_equal(dtb_find_node(&dt, "/"), -ENOENT);
	free(shifted);
	free(b.data);
}

/* Random byte damage: whatever dtb_open accepts must be safe to query. */
static void test_mutations_stay_in_bounds(void **state)
{
	struct blob good = compile_dts(qemu_like_dts);
	uint8_t *d = malloc(good.size);
	uint32_t seed = FUZZ_SEED;
	unsigned int round, accepted = 0;

	for (round = 0; round < FUZZ_ROUNDS; round++) {
		struct dtb_range r[MAX_RANGES];
		const char *args;
		unsigned int count, n, k;
		struct dtb dt;

		memcpy(d, good.data, good.size);
		n = 1 + round % 4;
		for (k = 0; k < n; k++) {
			seed = seed * 1664525u + 1013904223u;
			d[(seed >> 8) % good.size] ^= (uint8_t)(1u << (seed >> 29));
		}
		if (dtb_open(&dt, d, good.size))
			continue;
		accepted++;
		dtb_memory(&dt, r, MAX_RANGES, &count);
		dtb_bootargs(&dt, &args);
		dtb_find_node(&dt, "/soc/bus@1000/leaf");
		dtb_find_node(&dt, "/memory");
	}
	/* Most single-bit flips land in property values and names: the
	 * check above must not have rejected everything. */
	assert_true(accepted > FUZZ_ROUNDS / 10);
	assert_true(accepted < FUZZ_ROUNDS);
	free(d);
	free(good.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_like_tree),
		cmocka_unit_test(test_two_banks_32bit_cells),
		cmocka_unit_test(test_default_cells_and_bad_bootargs),
		cmocka_unit_test(test_no_memory_node),
		cmocka_unit_test(test_paths_and_props_match_libfdt),
		cmocka_unit_test(test_qemu_generated_dtb),
		cmocka_unit_test(test_corrupted_blobs_rejected),
		cmocka_unit_test(test_bad_buffers_rejected),
		cmocka_unit_test(test_mutations_stay_in_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
