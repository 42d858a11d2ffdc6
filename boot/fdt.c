/* SPDX-License-Identifier: MIT */
/*
 * Flattened device tree reader (devicetree specification v0.4, ch. 5).
 * dtb_open() checks the whole blob; the accessors then walk the structure
 * block knowing every token, name and length is inside its block.
 */
#include <errno.h>
#include <stdbool.h>

#include "boot/fdt.h"

/* Structure block tokens */
#define TOKEN_BEGIN_NODE	1u
#define TOKEN_END_NODE		2u
#define TOKEN_PROP		3u
#define TOKEN_NOP		4u
#define TOKEN_END		9u

/* Header field offsets */
#define HDR_MAGIC		0
#define HDR_TOTALSIZE		4
#define HDR_OFF_STRUCT		8
#define HDR_OFF_STRINGS		12
#define HDR_OFF_RSVMAP		16
#define HDR_VERSION		20
#define HDR_LAST_COMP		24
#define HDR_SIZE_STRINGS	32
#define HDR_SIZE_STRUCT		36

#define DTB_VERSION		17u
#define RSVMAP_ENTRY_SIZE	16u
#define PROP_HEADER_SIZE	8u	/* len, nameoff */

/* Root-node defaults when #address-cells/#size-cells are absent (spec 2.3.5). */
#define DEFAULT_ADDRESS_CELLS	2u
#define DEFAULT_SIZE_CELLS	1u

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t align4(uint32_t v)
{
	return (v + 3u) & ~3u;
}

/* [off, off + len) inside [0, limit), without overflow. */
static bool in_bounds(uint32_t off, uint32_t len, uint32_t limit)
{
	return off <= limit && len <= limit - off;
}

static const uint8_t *sblock(const struct dtb *dt)
{
	return dt->blob + dt->struct_off;
}

/* Length of the NUL-terminated string at p within n bytes, or -1. */
static int bounded_strlen(const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!p[i])
			return (int)i;
	return -1;
}

static bool str_equal(const uint8_t *a, const char *b)
{
	while (*a && *a == (uint8_t)*b) {
		a++;
		b++;
	}
	return *a == (uint8_t)*b;
}

/*
 * One token at struct-block offset `off` of a validated blob: its kind and
 * the offset of the token after it.
 */
static uint32_t next_token(const struct dtb *dt, uint32_t off, uint32_t *next)
{
	const uint8_t *s = sblock(dt);
	uint32_t tok = be32(s + off);

	off += 4;
	switch (tok) {
	case TOKEN_BEGIN_NODE:
		off += align4((uint32_t)bounded_strlen(s + off, dt->struct_size - off) + 1);
		break;
	case TOKEN_PROP:
		off += PROP_HEADER_SIZE + align4(be32(s + off));
		break;
	default:
		break;
	}
	*next = off;
	return tok;
}

/* Check the structure block token by token; sets dt->root. */
static const char *check_structure(struct dtb *dt)
{
	const uint8_t *s = sblock(dt);
	const uint8_t *strings = dt->blob + dt->strings_off;
	uint32_t off = 0, size = dt->struct_size;
	int depth = 0;
	bool seen_root = false;

	for (;;) {
		uint32_t tok;
		int n;

		if (!in_bounds(off, 4, size))
			return "structure block ends without an END token";
		tok = be32(s + off);
		off += 4;
		switch (tok) {
		case TOKEN_BEGIN_NODE:
			if (depth == 0) {
				if (seen_root)
					return "more than one root node";
				seen_root = true;
				dt->root = off - 4;
			}
			if (++depth > DTB_MAX_DEPTH)
				return "nodes nested too deeply";
			n = bounded_strlen(s + off, size - off);
			if (n < 0)
				return "node name not terminated inside the structure block";
			if (depth == 1 && n != 0)
				return "root node has a name";
			if (!in_bounds(off, align4((uint32_t)n + 1), size))
				return "node name padding runs past the structure block";
			off += align4((uint32_t)n + 1);
			break;
		case TOKEN_END_NODE:
			if (depth == 0)
				return "END_NODE without a matching BEGIN_NODE";
			depth--;
			break;
		case TOKEN_PROP: {
			uint32_t len, nameoff;

			if (depth == 0)
				return "property outside any node";
			if (!in_bounds(off, PROP_HEADER_SIZE, size))
				return "property header runs past the structure block";
			len = be32(s + off);
			nameoff = be32(s + off + 4);
			off += PROP_HEADER_SIZE;
			if (len > size || !in_bounds(off, align4(len), size))
				return "property value runs past the structure block";
			if (nameoff >= dt->strings_size ||
			    bounded_strlen(strings + nameoff, dt->strings_size - nameoff) < 0)
				return "property name outside the strings block";
			off += align4(len);
			break;
		}
		case TOKEN_NOP:
			break;
		case TOKEN_END:
			if (depth != 0)
				return "END token inside an open node";
			if (!seen_root)
				return "no root node";
			return NULL;
		default:
			return "unknown token in the structure block";
		}
	}
}

static const char *check_header(struct dtb *dt, const uint8_t *b, size_t avail)
{
	uint32_t size, off_rsv, version, last_comp, i;

	if (!b)
		return "no blob";
	if ((uintptr_t)b & 3)
		return "blob not 4-byte aligned";
	if (avail < DTB_HEADER_SIZE)
		return "buffer smaller than the header";
	if (be32(b + HDR_MAGIC) != DTB_MAGIC)
		return "bad magic (want 0xd00dfeed)";
	version = be32(b + HDR_VERSION);
	last_comp = be32(b + HDR_LAST_COMP);
	if (version < DTB_VERSION)
		return "version older than 17";
	if (last_comp > DTB_VERSION)
		return "last compatible version newer than 17";
	size = be32(b + HDR_TOTALSIZE);
	if (size < DTB_HEADER_SIZE)
		return "totalsize smaller than the header";
	if (size > avail)
		return "totalsize larger than the buffer";

	dt->blob = b;
	dt->size = size;
	dt->struct_off = be32(b + HDR_OFF_STRUCT);
	dt->struct_size = be32(b + HDR_SIZE_STRUCT);
	dt->strings_off = be32(b + HDR_OFF_STRINGS);
	dt->strings_size = be32(b + HDR_SIZE_STRINGS);
	off_rsv = be32(b + HDR_OFF_RSVMAP);

	if (dt->struct_off & 3 || dt->struct_size & 3)
		return "structure block not 4-byte aligned";
	if (dt->struct_off < DTB_HEADER_SIZE ||
	    !in_bounds(dt->struct_off, dt->struct_size, size))
		return "structure block outside the blob";
	if (dt->strings_off < DTB_HEADER_SIZE ||
	    !in_bounds(dt->strings_off, dt->strings_size, size))
		return "strings block outside the blob";
	if (off_rsv & 7)
		return "memory reservation block not 8-byte aligned";
	if (off_rsv < DTB_HEADER_SIZE)
		return "memory reservation block inside the header";
	/* The reservation list ends with an all-zero entry inside the blob. */
	for (i = off_rsv;; i += RSVMAP_ENTRY_SIZE) {
		uint32_t w;
		bool zero = true;

		if (!in_bounds(i, RSVMAP_ENTRY_SIZE, size))
			return "memory reservation list not terminated inside the blob";
		for (w = 0; w < RSVMAP_ENTRY_SIZE; w += 4)
			zero = zero && be32(b + i + w) == 0;
		if (zero)
			break;
	}
	return NULL;
}

int dtb_open(struct dtb *dt, const void *blob, size_t avail)
{
	const char *why;

	dt->blob = NULL;
	dt->size = 0;
	why = check_header(dt, blob, avail);
	if (!why)
		why = check_structure(dt);
	dt->error = why;
	if (why) {
		dt->blob = NULL;
		return -EINVAL;
	}
	return 0;
}

static bool valid_node(const struct dtb *dt, int node)
{
	return dt->blob && node >= 0 && (uint32_t)node < dt->struct_size &&
	       be32(sblock(dt) + node) == TOKEN_BEGIN_NODE;
}

/* Does node name `name` match path component [comp, comp + len)? A
 * component without a unit address also matches "comp@unit". */
static bool name_matches(const uint8_t *name, const char *comp, uint32_t len)
{
	uint32_t i;
	bool comp_has_unit = false;

	for (i = 0; i < len; i++) {
		if (name[i] != (uint8_t)comp[i])
			return false;
		if (comp[i] == '@')
			comp_has_unit = true;
	}
	return name[len] == '\0' || (!comp_has_unit && name[len] == '@');
}

static int find_child(const struct dtb *dt, int parent, const char *comp, uint32_t len)
{
	const uint8_t *s = sblock(dt);
	uint32_t off, next;
	int depth = 0;

	next_token(dt, (uint32_t)parent, &off);
	for (;;) {
		uint32_t here = off;
		uint32_t tok = next_token(dt, off, &next);

		off = next;
		switch (tok) {
		case TOKEN_BEGIN_NODE:
			if (depth == 0 && name_matches(s + here + 4, comp, len))
				return (int)here;
			depth++;
			break;
		case TOKEN_END_NODE:
			if (depth == 0)
				return -ENOENT;
			depth--;
			break;
		case TOKEN_END:
			return -ENOENT;
		default:
			break;
		}
	}
}

int dtb_find_node(const struct dtb *dt, const char *path)
{
	int node;

	if (!dt->blob || !path || *path != '/')
		return -ENOENT;
	node = (int)dt->root;
	while (*path) {
		uint32_t len = 0;

		while (*path == '/')
			path++;
		while (path[len] && path[len] != '/')
			len++;
		if (!len)
			break;
		node = find_child(dt, node, path, len);
		if (node < 0)
			return node;
		path += len;
	}
	return node;
}

int dtb_get_prop(const struct dtb *dt, int node, const char *name,
		 const void **value, uint32_t *len)
{
	const uint8_t *s = sblock(dt);
	uint32_t off, next;

	if (!valid_node(dt, node) || !name)
		return -ENOENT;
	next_token(dt, (uint32_t)node, &off);
	/* A node's properties come before its children. */
	for (;;) {
		uint32_t tok = next_token(dt, off, &next);

		if (tok == TOKEN_PROP) {
			uint32_t nameoff = be32(s + off + 8);

			if (str_equal(dt->blob + dt->strings_off + nameoff, name)) {
				*len = be32(s + off + 4);
				*value = s + off + 4 + PROP_HEADER_SIZE;
				return 0;
			}
		} else if (tok != TOKEN_NOP) {
			return -ENOENT;
		}
		off = next;
	}
}

int dtb_get_string(const struct dtb *dt, int node, const char *name, const char **str)
{
	const void *v;
	uint32_t len;
	int ret = dtb_get_prop(dt, node, name, &v, &len);

	if (ret)
		return ret;
	if (len == 0 || bounded_strlen(v, len) != (int)len - 1)
		return -EINVAL;
	*str = v;
	return 0;
}

int dtb_get_u32(const struct dtb *dt, int node, const char *name, uint32_t *value)
{
	const void *v;
	uint32_t len;
	int ret = dtb_get_prop(dt, node, name, &v, &len);

	if (ret)
		return ret;
	if (len != 4)
		return -EINVAL;
	*value = be32(v);
	return 0;
}

static int root_cells(const struct dtb *dt, const char *name, uint32_t dflt, uint32_t *cells)
{
	int ret = dtb_get_u32(dt, (int)dt->root, name, cells);

	if (ret == -ENOENT) {
		*cells = dflt;
		return 0;
	}
	if (ret)
		return ret;
	/* Addresses and sizes wider than 64 bits are not representable. */
	return *cells >= 1 && *cells <= 2 ? 0 : -EINVAL;
}

static uint64_t read_cells(const uint8_t *p, uint32_t cells)
{
	uint64_t v = be32(p);

	if (cells == 2)
		v = v << 32 | be32(p + 4);
	return v;
}

int dtb_memory(const struct dtb *dt, struct dtb_range *ranges, unsigned int max,
	       unsigned int *count)
{
	uint32_t ac, sc, off, next;
	int depth = 0, ret;
	bool found = false;

	*count = 0;
	if (!dt->blob)
		return -EINVAL;
	ret = root_cells(dt, "#address-cells", DEFAULT_ADDRESS_CELLS, &ac);
	if (!ret)
		ret = root_cells(dt, "#size-cells", DEFAULT_SIZE_CELLS, &sc);
	if (ret)
		return ret;

	next_token(dt, dt->root, &off);
	for (;;) {
		uint32_t here = off;
		uint32_t tok = next_token(dt, off, &next);
		const char *type;
		const uint8_t *reg;
		const void *value;
		uint32_t len, entry, i;

		off = next;
		if (tok == TOKEN_END_NODE && depth-- == 0)
			break;
		if (tok == TOKEN_END)
			break;
		if (tok != TOKEN_BEGIN_NODE || depth++ != 0)
			continue;
		if (dtb_get_string(dt, (int)here, "device_type", &type) ||
		    !str_equal((const uint8_t *)type, "memory"))
			continue;
		found = true;
		if (dtb_get_prop(dt, (int)here, "reg", &value, &len))
			continue;
		reg = value;
		entry = (ac + sc) * 4;
		if (len % entry)
			return -EINVAL;
		for (i = 0; i < len; i += entry) {
			if (*count < max) {
				ranges[*count].base = read_cells(reg + i, ac);
				ranges[*count].size = read_cells(reg + i + ac * 4, sc);
			}
			(*count)++;
		}
	}
	return found ? 0 : -ENOENT;
}

int dtb_bootargs(const struct dtb *dt, const char **args)
{
	int chosen = dtb_find_node(dt, "/chosen");

	if (chosen < 0)
		return chosen;
	return dtb_get_string(dt, chosen, "bootargs", args);
}
