/* SPDX-License-Identifier: MIT */
/*
 * The verifying loader of the model container (model.h, docs/FORMAT.md).
 * Everything is checked before the runtime allocates anything or touches
 * the NPU: here the header and checksum, the section table and the shape
 * sets; in model_check.c every record, the op parameters against the
 * lowering's own rules (lower_*_check), the sizes of the packed constants,
 * and the activation plan against the tensors' lifetimes. Offsets are
 * added in 64 bits, so no sum can wrap.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model_check.h"
#include "runtime/op_kinds.h"

/* Sizes the arithmetic below relies on. */
_Static_assert(sizeof(struct rkb_header) == 64, "rkb_header is 64 bytes");
_Static_assert(sizeof(struct rkb_section) == 16, "rkb_section is 16 bytes");
_Static_assert(sizeof(struct rkb_tensor) == 40, "rkb_tensor is 40 bytes");
_Static_assert(sizeof(struct rkb_io) == 44, "rkb_io is 44 bytes");
_Static_assert(sizeof(struct rkb_op) == 128, "rkb_op is 128 bytes");
_Static_assert(sizeof(struct rkb_plan) == 16, "rkb_plan is 16 bytes");
_Static_assert(sizeof(struct rkb_shape_set) == 32, "rkb_shape_set is 32 bytes");

/* Input shape sets, the first included (rknn's RKNN_MAX_DYNAMIC_SHAPE_NUM
 * is far larger; each set holds a program's worth of records). */
#define RKB_MAX_SHAPES		64u

/* A blob that is not 4-byte aligned is refused: the float scales of the
 * constants are used in place. */
#define RKB_BLOB_ALIGN		4u

const char *rkb_op_kind(const struct rkb_model *m, const struct rkb_op *op)
{
	const struct rkb_op_kind *k = rkb_op_kind_of(op->type);

	if (!k)
		return "unknown";
	/* a CPU op is known by the type its implementation is registered under */
	return (k->uses & RKB_USES_CPU_TYPE) ? rkb_model_str(m, op->cpu_type) : k->name;
}

const char *rkb_strerror(int status)
{
	static const char *const names[] = {
		[0] = "ok",
		[-RKB_E_TRUNCATED] = "truncated",
		[-RKB_E_MAGIC] = "not a model container",
		[-RKB_E_VERSION] = "unsupported version",
		[-RKB_E_CHECKSUM] = "checksum mismatch",
		[-RKB_E_HEADER] = "bad header",
		[-RKB_E_SECTION] = "bad section table",
		[-RKB_E_STRING] = "bad string",
		[-RKB_E_TENSOR] = "bad tensor",
		[-RKB_E_IO] = "bad input/output",
		[-RKB_E_OP] = "bad op",
		[-RKB_E_PLAN] = "bad memory plan",
		[-RKB_E_NOMEM] = "out of memory",
		[-RKB_E_NPU] = "NPU job failed",
		[-RKB_E_TIMEOUT] = "NPU timeout",
		[-RKB_E_ARG] = "bad argument",
		[-RKB_E_DMA] = "DMA outside the context's buffers",
		[-RKB_E_BUSY] = "a run is in flight, or the NPU cores stayed busy",
		[-RKB_E_CPU_OP] = "a CPU op failed",
	};

	if (status > 0 || (size_t)-status >= sizeof(names) / sizeof(names[0]))
		return "unknown status";
	return names[-status];
}

/* CRC-32 register update, without the initial and final inversion. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t len)
{
	/* Nibble table of the reflected polynomial 0xedb88320. */
	static const uint32_t nib[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
		0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};

	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ nib[crc & 0xf];
		crc = (crc >> 4) ^ nib[crc & 0xf];
	}
	return crc;
}

uint32_t rkb_crc32(const void *data, size_t len)
{
	return ~crc32_update(~0u, data, len);
}

/* The CRC of a container: its bytes with header.crc32 read as zero. */
static uint32_t file_crc(const uint8_t *b, size_t size)
{
	static const uint8_t zero[sizeof(uint32_t)];
	size_t at = offsetof(struct rkb_header, crc32);
	uint32_t crc = crc32_update(~0u, b, at);

	crc = crc32_update(crc, zero, sizeof(zero));
	crc = crc32_update(crc, b + at + sizeof(zero), size - at - sizeof(zero));
	return ~crc;
}

/* ---- sections ---- */

static int load_header(struct rkb_loader *l, struct rkb_header *h)
{
	uint32_t crc;

	if (l->size < sizeof(*h))
		return fail(l, RKB_E_TRUNCATED, "file: %zu bytes, shorter than the %zu-byte header",
			    l->size, sizeof(*h));
	memcpy(h, l->b, sizeof(*h));
	if (h->magic != RKB_MAGIC)
		return fail(l, RKB_E_MAGIC, "header.magic: 0x%08x, expected 0x%08x (\"RKBM\")",
			    h->magic, RKB_MAGIC);
	if (h->version_major != RKB_VERSION_MAJOR)
		return fail(l, RKB_E_VERSION, "header.version: %u.%u, this loader reads %u.x",
			    h->version_major, h->version_minor, RKB_VERSION_MAJOR);
	if (h->header_bytes != sizeof(*h))
		return fail(l, RKB_E_HEADER, "header.header_bytes: %u, expected %zu",
			    h->header_bytes, sizeof(*h));
	if (h->file_bytes != l->size)
		return fail(l, h->file_bytes > l->size ? RKB_E_TRUNCATED : RKB_E_HEADER,
			    "header.file_bytes: %u, the blob has %zu", h->file_bytes, l->size);
	crc = file_crc(l->b, l->size);
	if (crc != h->crc32)
		return fail(l, RKB_E_CHECKSUM, "header.crc32: 0x%08x, the contents give 0x%08x",
			    h->crc32, crc);
	if (h->target != RKB_TARGET_RK3588)
		return fail(l, RKB_E_HEADER, "header.target: %u, this runtime drives %u",
			    h->target, RKB_TARGET_RK3588);
	if (h->flags)
		return fail(l, RKB_E_HEADER, "header.flags: 0x%x, none are defined", h->flags);
	for (size_t i = 0; i < sizeof(h->reserved) / sizeof(h->reserved[0]); i++)
		if (h->reserved[i])
			return fail(l, RKB_E_HEADER, "header.reserved[%zu]: not zero", i);
	return RKB_OK;
}

static const char *const section_names[RKB_SEC_TYPES_END] = {
	[RKB_SEC_STRINGS] = "STRINGS", [RKB_SEC_TENSORS] = "TENSORS", [RKB_SEC_OPS] = "OPS",
	[RKB_SEC_INPUTS] = "INPUTS", [RKB_SEC_OUTPUTS] = "OUTPUTS",
	[RKB_SEC_CONSTANTS] = "CONSTANTS", [RKB_SEC_PLAN] = "PLAN", [RKB_SEC_USER] = "USER",
	[RKB_SEC_SHAPES] = "SHAPES", [RKB_SEC_VIEWS] = "VIEWS",
};

/* Record size of each section, 0 for byte blobs. */
static const uint32_t section_record[RKB_SEC_TYPES_END] = {
	[RKB_SEC_TENSORS] = sizeof(struct rkb_tensor), [RKB_SEC_OPS] = sizeof(struct rkb_op),
	[RKB_SEC_INPUTS] = sizeof(struct rkb_io), [RKB_SEC_OUTPUTS] = sizeof(struct rkb_io),
	[RKB_SEC_PLAN] = sizeof(struct rkb_plan), [RKB_SEC_VIEWS] = sizeof(struct rkb_view),
};

static int load_sections(struct rkb_loader *l, const struct rkb_header *h,
			 struct rkb_section sec[RKB_SEC_TYPES_END])
{
	memset(sec, 0, sizeof(*sec) * RKB_SEC_TYPES_END);
	if (h->section_count > RKB_SEC_TYPES_END ||
	    !range_ok(h->section_offset, (uint64_t)h->section_count * sizeof(*sec), l->size) ||
	    h->section_offset < sizeof(*h) || h->section_offset % sizeof(uint32_t))
		return fail(l, RKB_E_SECTION, "header.section_offset/section_count: %u/%u do not "
			    "fit a %zu-byte file", h->section_offset, h->section_count, l->size);
	for (uint32_t i = 0; i < h->section_count; i++) {
		struct rkb_section s;

		memcpy(&s, l->b + h->section_offset + i * sizeof(s), sizeof(s));
		if (s.type == 0 || s.type >= RKB_SEC_TYPES_END) {
			if (s.type == 0)
				return fail(l, RKB_E_SECTION, "section[%u].type: 0", i);
			continue;	/* a later minor version's section: skipped */
		}
		if (sec[s.type].type)
			return fail(l, RKB_E_SECTION, "section[%u]: a second %s section", i,
				    section_names[s.type]);
		if (!range_ok(s.offset, s.bytes, l->size) || s.offset < sizeof(*h) ||
		    s.offset % sizeof(uint32_t))
			return fail(l, RKB_E_SECTION, "section %s: %u bytes at %u do not fit a "
				    "%zu-byte file (or are not 4-byte aligned)",
				    section_names[s.type], s.bytes, s.offset, l->size);
		if (s.type == RKB_SEC_CONSTANTS && s.offset % RKB_CONST_ALIGN)
			return fail(l, RKB_E_SECTION, "section CONSTANTS: offset %u is not "
				    "%u-byte aligned", s.offset, RKB_CONST_ALIGN);
		if (s.type == RKB_SEC_SHAPES ?
		    (!s.count || s.count >= RKB_MAX_SHAPES) :
		    section_record[s.type] ?
		    (s.count > RKB_MAX_RECORDS ||
		     (uint64_t)s.count * section_record[s.type] != s.bytes) :
		    s.count != s.bytes)
			return fail(l, RKB_E_SECTION, "section %s: count %u and %u bytes disagree",
				    section_names[s.type], s.count, s.bytes);
		sec[s.type] = s;
	}
	for (unsigned int t = RKB_SEC_STRINGS; t < RKB_SEC_USER; t++)
		if (!sec[t].type)
			return fail(l, RKB_E_SECTION, "section %s: missing", section_names[t]);
	if (sec[RKB_SEC_PLAN].count != 1)
		return fail(l, RKB_E_SECTION, "section PLAN: %u records, expected 1",
			    sec[RKB_SEC_PLAN].count);
	return RKB_OK;
}

static void *copy_records(const struct rkb_loader *l, const struct rkb_section *s)
{
	void *p = malloc(s->bytes ? s->bytes : 1);

	if (p)
		memcpy(p, l->b + s->offset, s->bytes);
	return p;
}

/* The records of shape set 0: the sections themselves. */
static int load_set0(struct rkb_loader *l, const struct rkb_section *sec, struct rkb_shape *sh)
{
	memcpy(&sh->plan, l->b + sec[RKB_SEC_PLAN].offset, sizeof(sh->plan));
	sh->n_tensors = sec[RKB_SEC_TENSORS].count;
	sh->n_ops = sec[RKB_SEC_OPS].count;
	sh->tensors = copy_records(l, &sec[RKB_SEC_TENSORS]);
	sh->ops = copy_records(l, &sec[RKB_SEC_OPS]);
	sh->inputs = copy_records(l, &sec[RKB_SEC_INPUTS]);
	sh->outputs = copy_records(l, &sec[RKB_SEC_OUTPUTS]);
	if (!sh->tensors || !sh->ops || !sh->inputs || !sh->outputs)
		return fail(l, RKB_E_NOMEM, "out of memory copying the records");
	return RKB_OK;
}

/* Copies n records of `size` bytes at *at within the SHAPES section; NULL
 * (with *at past the end) when they do not fit. */
static void *take_records(struct rkb_loader *l, const struct rkb_section *s, uint64_t *at,
			  uint32_t n, size_t size)
{
	uint64_t bytes = (uint64_t)n * size;
	void *p;

	if (*at + bytes > s->bytes) {
		*at = (uint64_t)s->bytes + 1;	/* past the end: "ends inside" */
		return NULL;
	}
	p = malloc(bytes ? (size_t)bytes : 1);
	if (p)
		memcpy(p, l->b + s->offset + *at, (size_t)bytes);
	*at += bytes;
	return p;
}

/* Shape sets 1.. from the SHAPES section. */
static int load_shape_sets(struct rkb_loader *l, const struct rkb_section *s)
{
	struct rkb_model *m = l->m;
	uint64_t at = 0;

	for (uint32_t k = 1; k < m->n_shapes; k++) {
		struct rkb_shape *sh = &m->shapes[k];
		struct rkb_shape_set hdr;

		l->set = k;
		if (at + sizeof(hdr) > s->bytes)
			return fail(l, RKB_E_SECTION, "section SHAPES: %u bytes end inside set %u",
				    s->bytes, k);
		memcpy(&hdr, l->b + s->offset + at, sizeof(hdr));
		at += sizeof(hdr);
		if (hdr.n_inputs != m->n_inputs || hdr.n_outputs != m->n_outputs ||
		    hdr.n_tensors > RKB_MAX_RECORDS || hdr.n_ops > RKB_MAX_RECORDS)
			return fail(l, RKB_E_SECTION, "n_inputs/n_outputs/n_tensors/n_ops: "
				    "%u/%u/%u/%u (the model has %u inputs and %u outputs; at most "
				    "%u records)", hdr.n_inputs, hdr.n_outputs, hdr.n_tensors,
				    hdr.n_ops, m->n_inputs, m->n_outputs, RKB_MAX_RECORDS);
		sh->n_tensors = hdr.n_tensors;
		sh->n_ops = hdr.n_ops;
		sh->plan = hdr.plan;
		sh->tensors = take_records(l, s, &at, hdr.n_tensors, sizeof(*sh->tensors));
		sh->ops = take_records(l, s, &at, hdr.n_ops, sizeof(*sh->ops));
		sh->inputs = take_records(l, s, &at, hdr.n_inputs, sizeof(*sh->inputs));
		sh->outputs = take_records(l, s, &at, hdr.n_outputs, sizeof(*sh->outputs));
		if (at > s->bytes)
			return fail(l, RKB_E_SECTION, "section SHAPES: %u bytes end inside set %u",
				    s->bytes, k);
		if (!sh->tensors || !sh->ops || !sh->inputs || !sh->outputs)
			return fail(l, RKB_E_NOMEM, "out of memory copying the records");
	}
	l->set = 0;
	if (at != s->bytes)
		return fail(l, RKB_E_SECTION, "section SHAPES: %llu of its %u bytes are no set's",
			    (unsigned long long)(s->bytes - at), s->bytes);
	return RKB_OK;
}

void rkb_model_select_shape(struct rkb_model *m, uint32_t k)
{
	const struct rkb_shape *sh = &m->shapes[k];

	m->shape = k;
	m->tensors = sh->tensors;
	m->n_tensors = sh->n_tensors;
	m->ops = sh->ops;
	m->n_ops = sh->n_ops;
	m->inputs = sh->inputs;
	m->outputs = sh->outputs;
	m->plan = sh->plan;
}

int rkb_model_load(const void *blob, size_t size, struct rkb_model *m, char *err,
		   size_t err_len)
{
	struct rkb_loader l = { .b = blob, .size = size, .m = m, .err = err, .err_len = err_len };
	struct rkb_section sec[RKB_SEC_TYPES_END];
	struct rkb_header h;
	int rc;

	if (err_len)
		err[0] = '\0';
	if (!m)
		return RKB_E_ARG;
	memset(m, 0, sizeof(*m));
	if (!blob || (uintptr_t)blob % RKB_BLOB_ALIGN)
		return fail(&l, RKB_E_ARG, "blob: NULL or not %u-byte aligned", RKB_BLOB_ALIGN);
	rc = load_header(&l, &h);
	if (!rc)
		rc = load_sections(&l, &h, sec);
	if (rc)
		return rc;
	m->blob = blob;
	m->size = size;
	m->version_minor = h.version_minor;
	m->strings = (const char *)l.b + sec[RKB_SEC_STRINGS].offset;
	m->strings_bytes = sec[RKB_SEC_STRINGS].bytes;
	if (!m->strings_bytes || m->strings[m->strings_bytes - 1] != '\0') {
		rc = fail(&l, RKB_E_STRING, "STRINGS: empty or not NUL-terminated");
		goto err;
	}
	m->constants = l.b + sec[RKB_SEC_CONSTANTS].offset;
	m->const_bytes = sec[RKB_SEC_CONSTANTS].bytes;
	if (sec[RKB_SEC_USER].type) {
		m->user = (const char *)l.b + sec[RKB_SEC_USER].offset;
		m->user_bytes = sec[RKB_SEC_USER].bytes;
	}
	if (sec[RKB_SEC_VIEWS].type) {
		/* the blob is 4-byte aligned (RKB_BLOB_ALIGN), as is the section */
		m->views = (const struct rkb_view *)(const void *)(l.b + sec[RKB_SEC_VIEWS].offset);
		m->n_views = sec[RKB_SEC_VIEWS].count;
	}
	m->n_inputs = sec[RKB_SEC_INPUTS].count;
	m->n_outputs = sec[RKB_SEC_OUTPUTS].count;
	m->n_shapes = 1u + (sec[RKB_SEC_SHAPES].type ? sec[RKB_SEC_SHAPES].count : 0u);
	m->shapes = calloc(m->n_shapes, sizeof(*m->shapes));
	if (!m->shapes) {
		rc = fail(&l, RKB_E_NOMEM, "out of memory copying the records");
		goto err;
	}
	rc = load_set0(&l, sec, &m->shapes[0]);
	if (!rc && m->n_shapes > 1)
		rc = load_shape_sets(&l, &sec[RKB_SEC_SHAPES]);
	for (uint32_t k = 0; !rc && k < m->n_shapes; k++) {
		l.set = k;
		rkb_model_select_shape(m, k);
		rc = rkb_check_set(&l);
		if (m->plan.arena_bytes > m->max_arena_bytes)
			m->max_arena_bytes = m->plan.arena_bytes;
	}
	if (rc)
		goto err;
	rkb_model_select_shape(m, 0);
	return RKB_OK;
err:
	rkb_model_unload(m);
	return rc;
}

void rkb_model_unload(struct rkb_model *m)
{
	if (!m)
		return;
	for (uint32_t k = 0; m->shapes && k < m->n_shapes; k++) {
		free(m->shapes[k].tensors);
		free(m->shapes[k].ops);
		free(m->shapes[k].inputs);
		free(m->shapes[k].outputs);
	}
	free(m->shapes);
	memset(m, 0, sizeof(*m));
}
