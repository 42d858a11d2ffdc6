/* SPDX-License-Identifier: MIT */
/*
 * A small reader of flattened device trees (DTB, devicetree specification
 * v0.4 chapter 5): enough to find the RAM and /chosen/bootargs that the
 * boot loader passes.
 *
 * The blob is validated once, completely, by dtb_open() (header, block
 * bounds, every token, every name) before anything else reads it; a bad
 * blob is rejected with a reason. The reader uses only byte loads and no
 * library calls, so it also runs before the MMU is on, when misaligned
 * accesses fault. Functions are prefixed dtb_ rather than fdt_ so the host
 * tests can link libfdt next to it as the independent reference.
 */
#ifndef RKBARE_FDT_H
#define RKBARE_FDT_H

#include <stddef.h>
#include <stdint.h>

#define DTB_MAGIC		0xd00dfeedu
#define DTB_HEADER_SIZE		40u	/* version 17 header, ten 32-bit fields */
/* Nodes nest at most this deep; deeper trees are rejected. */
#define DTB_MAX_DEPTH		32

struct dtb {
	const uint8_t *blob;
	uint32_t size;			/* header totalsize */
	uint32_t struct_off;
	uint32_t struct_size;
	uint32_t strings_off;
	uint32_t strings_size;
	uint32_t root;			/* struct-block offset of the root node */
	const char *error;		/* why dtb_open() failed, else NULL */
};

struct dtb_range {
	uint64_t base;
	uint64_t size;
};

/*
 * Validate the blob at `blob` (at most `avail` readable bytes; it must be
 * 4-byte aligned) and fill *dt. Returns 0, or -EINVAL with dt->error set.
 */
int dtb_open(struct dtb *dt, const void *blob, size_t avail);

/* Node by absolute path ("/", "/chosen", "/memory" matches "memory@..."):
 * a node handle >= 0, or -ENOENT. */
int dtb_find_node(const struct dtb *dt, const char *path);

/* Property of a node: 0 with value and len set, or -ENOENT. */
int dtb_get_prop(const struct dtb *dt, int node, const char *name,
		 const void **value, uint32_t *len);

/* A string property: 0, -ENOENT, or -EINVAL when it is not one NUL-
 * terminated string. */
int dtb_get_string(const struct dtb *dt, int node, const char *name, const char **str);

/* A one-cell property: 0, -ENOENT, or -EINVAL when it is not 4 bytes. */
int dtb_get_u32(const struct dtb *dt, int node, const char *name, uint32_t *value);

/*
 * RAM ranges: the reg entries of every device_type = "memory" node under
 * the root, decoded with the root's #address-cells/#size-cells (1 or 2).
 * Fills up to `max` entries, sets *count (entries found, may exceed max).
 * Returns 0, -ENOENT (no memory node) or -EINVAL (malformed reg/cells).
 */
int dtb_memory(const struct dtb *dt, struct dtb_range *ranges, unsigned int max,
	       unsigned int *count);

/* /chosen/bootargs: 0, -ENOENT, or -EINVAL (not a string). */
int dtb_bootargs(const struct dtb *dt, const char **args);

#endif /* RKBARE_FDT_H */
