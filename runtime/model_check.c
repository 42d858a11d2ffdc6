// SPDX-License-Identifier: MIT
/*
 * The loader's checks of one shape set's records (model_check.h): every
 * tensor, input and output; every op's fields, then the op handed to the
 * same check the lowering runs (lower_*_check), whose output shape must be
 * the output tensor's and whose byte counts must be the constants' and fit
 * the tensors' arena ranges; the task count; the data flow and the plan
 * against the tensors' lifetimes. Offsets are added in 64 bits.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/layout.h"
#include "runtime/cpu_ops.h"
#include "runtime/model_check.h"
#include "runtime/op_kinds.h"

/* The placeholder NPU addresses the checks lower against. */
#define RKB_CHECK_ADDR		0x1000u

static bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

int rkb_check_name(struct rkb_loader *l, uint32_t off, const char *what, uint32_t i)
{
	if (off >= l->m->strings_bytes)
		return fail(l, RKB_E_STRING, "%s[%u].name: offset %u outside STRINGS (%u bytes)",
			    what, i, off, l->m->strings_bytes);
	return RKB_OK;
}

/* The view record of tensor t, or NULL. */
static const struct rkb_view *view_of(const struct rkb_model *m, uint32_t t)
{
	for (uint32_t i = 0; i < m->n_views; i++)
		if (m->views[i].tensor == t)
			return &m->views[i];
	return NULL;
}

static bool is_edge(const struct rkb_model *m, uint32_t t)
{
	for (uint32_t i = 0; i < m->n_inputs; i++)
		if (m->inputs[i].tensor == t)
			return true;
	for (uint32_t i = 0; i < m->n_outputs; i++)
		if (m->outputs[i].tensor == t)
			return true;
	return false;
}

/* The channels of [0, end) that parent p's views hold (disjoint views:
 * the sum of their overlaps with it). */
static uint64_t channels_held(const struct rkb_model *m, uint32_t p, uint64_t end)
{
	uint64_t held = 0;

	for (uint32_t i = 0; i < m->n_views; i++) {
		uint64_t a = m->views[i].c_offset;
		uint64_t b = a + m->tensors[m->views[i].tensor].c_mem;

		if (m->views[i].parent == p && a < end)
			held += (b < end ? b : end) - a;
	}
	return held;
}

/* Does an op write tensor t? */
static bool op_writes(const struct rkb_model *m, uint32_t t)
{
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].out == t)
			return true;
	return false;
}

/* The views (docs/FORMAT.md): each a surface-aligned channel range inside
 * its parent, of its element type and plane, and away from the graph
 * edges; the views of a parent no op writes (their producers write them)
 * disjoint and together covering its channels. */
static int check_views(struct rkb_loader *l)
{
	const struct rkb_model *m = l->m;

	if (m->n_views > m->n_tensors)
		return fail(l, RKB_E_PLAN, "%u views of %u tensors", m->n_views, m->n_tensors);
	for (uint32_t i = 0; i < m->n_views; i++) {
		const struct rkb_view *v = &m->views[i];
		const struct rkb_tensor *t, *p;
		unsigned int c2;

		if (v->reserved || v->tensor >= m->n_tensors || v->parent >= m->n_tensors ||
		    v->tensor == v->parent || view_of(m, v->parent) || view_of(m, v->tensor) != v)
			return fail(l, RKB_E_PLAN, "view[%u]: tensor %u, parent %u: not two distinct "
				    "tensors, a parent that is a view, a tensor viewed twice or "
				    "reserved not 0", i, v->tensor, v->parent);
		t = &m->tensors[v->tensor];
		p = &m->tensors[v->parent];
		c2 = layout_c2(rkb_tensor_prec(p));
		if (t->dtype != p->dtype || t->h != p->h || t->w != p->w || v->c_offset % c2 ||
		    (uint64_t)v->c_offset + t->c_mem > p->c_mem ||
		    t->arena_offset != p->arena_offset +
		    layout_nc1hwc2_bytes(rkb_tensor_prec(p), p->h, p->w, v->c_offset))
			return fail(l, RKB_E_PLAN, "view[%u] '%s': not channels %u.. (a multiple of "
				    "%u) of '%s' at its arena offset %u plus their surfaces, with its "
				    "type, rows and columns", i, m->strings + t->name, v->c_offset,
				    c2, m->strings + p->name, p->arena_offset);
		for (uint32_t j = 0; j < i && !op_writes(m, v->parent); j++) {
			const struct rkb_view *u = &m->views[j];

			if (u->parent == v->parent &&
			    overlap(u->c_offset, m->tensors[u->tensor].c_mem, v->c_offset, t->c_mem))
				return fail(l, RKB_E_PLAN, "view[%u] '%s' overlaps view[%u] of '%s'",
					    i, m->strings + t->name, j, m->strings + p->name);
		}
		if (is_edge(m, v->tensor) || is_edge(m, v->parent))
			return fail(l, RKB_E_PLAN, "view[%u] '%s' or its parent is a graph input "
				    "or output", i, m->strings + t->name);
	}
	for (uint32_t i = 0; i < m->n_views; i++) {
		const struct rkb_tensor *p = &m->tensors[m->views[i].parent];
		uint64_t groups = layout_align(p->c, layout_c2(rkb_tensor_prec(p)));

		if (!op_writes(m, m->views[i].parent) &&
		    channels_held(m, m->views[i].parent, groups) != groups)
			return fail(l, RKB_E_PLAN, "view[%u]: its views do not hold every channel "
				    "group of its parent '%s'", i, m->strings + p->name);
	}
	return RKB_OK;
}

static int check_tensors(struct rkb_loader *l)
{
	const struct rkb_model *m = l->m;

	for (uint32_t i = 0; i < m->n_tensors; i++) {
		const struct rkb_tensor *t = &m->tensors[i];
		int rc = rkb_check_name(l, t->name, "tensor", i);
		const char *n = m->strings + (rc ? 0 : t->name);

		if (rc)
			return rc;
		if (t->dtype != RKB_DT_INT8 && t->dtype != RKB_DT_INT32 && t->dtype != RKB_DT_FP16)
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s'.dtype: %u (int8, int32 or fp16)",
				    i, n, t->dtype);
		if (t->dtype != RKB_DT_INT8 && (t->scale != 1.0f || t->zp))
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s': %s with scale %g and zp %d "
				    "(1 and 0)", i, n, t->dtype == RKB_DT_FP16 ? "fp16" : "int32",
				    (double)t->scale, t->zp);
		if (!t->c || !t->h || !t->w || t->c > RKB_MAX_DIM || t->h > RKB_MAX_DIM ||
		    t->w > RKB_MAX_DIM || t->c_mem < t->c || t->c_mem > RKB_MAX_DIM)
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s': shape %ux%ux%u (c_mem %u) "
				    "outside 1..%u", i, n, t->c, t->h, t->w, t->c_mem, RKB_MAX_DIM);
		if (!isfinite(t->scale) || !(t->scale > 0.0f))
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s'.scale: %g is not a positive "
				    "finite number", i, n, (double)t->scale);
		if (t->zp < INT8_MIN || t->zp > INT8_MAX)
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s'.zp: %d outside int8", i, n,
				    t->zp);
		if (t->arena_offset % (view_of(m, i) ? RKB_VIEW_ALIGN : RKB_ARENA_ALIGN) ||
		    !range_ok(t->arena_offset, t->arena_bytes, m->plan.arena_bytes) ||
		    t->arena_bytes < layout_nc1hwc2_bytes(rkb_tensor_prec(t), t->h, t->w,
							  t->c_mem))
			return fail(l, RKB_E_PLAN, "tensor[%u] '%s': %u bytes at arena offset %u "
				    "(arena %u bytes, %zu needed, %u-byte aligned)", i, n,
				    t->arena_bytes, t->arena_offset, m->plan.arena_bytes,
				    layout_nc1hwc2_bytes(rkb_tensor_prec(t), t->h, t->w, t->c_mem),
				    RKB_ARENA_ALIGN);
	}
	return RKB_OK;
}

static int check_io(struct rkb_loader *l, const struct rkb_io *io, uint32_t count,
		    const char *what)
{
	const struct rkb_model *m = l->m;

	if (!count)
		return fail(l, RKB_E_IO, "%s: none", what);
	bool output = !strcmp(what, "output");

	for (uint32_t i = 0; i < count; i++) {
		uint64_t elems = 1;
		const struct rkb_tensor *t;
		bool wide;
		int rc = rkb_check_name(l, io[i].name, what, i);

		if (rc)
			return rc;
		if (io[i].tensor >= m->n_tensors)
			return fail(l, RKB_E_IO, "%s[%u].tensor: %u of %u", what, i, io[i].tensor,
				    m->n_tensors);
		if (io[i].kind < RKB_IO_FLOAT || io[i].kind > RKB_IO_INT32)
			return fail(l, RKB_E_IO, "%s[%u].kind: %u", what, i, io[i].kind);
		/* int32 tensors are raw sums: outputs, read as int32 or float;
		 * fp16 tensors meet the user as float */
		wide = m->tensors[io[i].tensor].dtype == RKB_DT_INT32;
		if (m->tensors[io[i].tensor].dtype == RKB_DT_FP16 ? io[i].kind != RKB_IO_FLOAT :
		    wide ? io[i].kind == RKB_IO_INT8 || io[i].kind == RKB_IO_UINT8 || !output :
			   io[i].kind == RKB_IO_INT32)
			return fail(l, RKB_E_IO, "%s[%u].kind: %u for a%s %s tensor", what, i,
				    io[i].kind, output ? "n" : "n input",
				    wide ? "int32" : m->tensors[io[i].tensor].dtype == RKB_DT_FP16 ?
				    "fp16" : "int8");
		if (io[i].layout > RKB_LAYOUT_NHWC)
			return fail(l, RKB_E_IO, "%s[%u].layout: %u", what, i, io[i].layout);
		if (!io[i].rank || io[i].rank > RKB_MAX_RANK)
			return fail(l, RKB_E_IO, "%s[%u].rank: %u (1..%u)", what, i, io[i].rank,
				    RKB_MAX_RANK);
		for (uint32_t d = 0; d < io[i].rank; d++) {
			if (!io[i].dims[d] || io[i].dims[d] > RKB_MAX_DIM)
				return fail(l, RKB_E_IO, "%s[%u].dims[%u]: %u", what, i, d,
					    io[i].dims[d]);
			elems *= io[i].dims[d];
		}
		for (uint32_t d = io[i].rank; d < RKB_MAX_RANK; d++)
			if (io[i].dims[d])
				return fail(l, RKB_E_IO, "%s[%u].dims[%u]: %u past rank %u (must be "
					    "0)", what, i, d, io[i].dims[d], io[i].rank);
		t = &m->tensors[io[i].tensor];
		if (elems != (uint64_t)t->c * t->h * t->w)
			return fail(l, RKB_E_IO, "%s[%u] '%s': %llu elements, its tensor %ux%ux%u",
				    what, i, m->strings + io[i].name, (unsigned long long)elems,
				    t->c, t->h, t->w);
	}
	return RKB_OK;
}

/* ---- ops ---- */

int rkb_check_const(struct rkb_loader *l, uint32_t i, const char *field,
		    const struct rkb_range *r, uint64_t expected)
{
	if (r->bytes != expected)
		return fail(l, RKB_E_OP, "op[%u].%s: %u bytes, the layer needs %llu", i, field,
			    r->bytes, (unsigned long long)expected);
	if (r->bytes && (r->offset % RKB_CONST_ALIGN ||
			 !range_ok(r->offset, r->bytes, l->m->const_bytes)))
		return fail(l, RKB_E_OP, "op[%u].%s: %u bytes at %u outside CONSTANTS (%u bytes, "
			    "%u-byte aligned)", i, field, r->bytes, r->offset, l->m->const_bytes,
			    RKB_CONST_ALIGN);
	return RKB_OK;
}

const struct rkb_op_addrs rkb_check_addrs = {
	.in = { RKB_CHECK_ADDR, RKB_CHECK_ADDR }, .out = RKB_CHECK_ADDR,
	.weights = RKB_CHECK_ADDR, .bias = RKB_CHECK_ADDR, .mult = RKB_CHECK_ADDR,
	.scratch = RKB_CHECK_ADDR,
};

/* Does tensor t hold at least `bytes` and `c_aligned` channels? */
int rkb_check_fits(struct rkb_loader *l, uint32_t i, const char *role, uint32_t t,
		   unsigned int c_aligned, size_t bytes)
{
	const struct rkb_tensor *x = &l->m->tensors[t];

	if (x->c_mem < c_aligned || x->arena_bytes < bytes)
		return fail(l, RKB_E_PLAN, "op[%u] %s '%s': %u channels / %u bytes in memory, "
			    "the layer uses %u / %zu", i, role, l->m->strings + x->name,
			    x->c_mem, x->arena_bytes, c_aligned, bytes);
	return RKB_OK;
}

int rkb_check_out_shape(struct rkb_loader *l, uint32_t i, unsigned int c, unsigned int h,
			unsigned int w)
{
	const struct rkb_tensor *o = &l->m->tensors[l->m->ops[i].out];

	if (o->c != c || o->h != h || o->w != w)
		return fail(l, RKB_E_OP, "op[%u]: output '%s' is %ux%ux%u, the layer makes "
			    "%ux%ux%u", i, l->m->strings + o->name, o->c, o->h, o->w, c, h, w);
	return RKB_OK;
}

/*
 * Element types around op i: int8 ops read and write int8 (a type with
 * RKB_DTYPES_INT32_OUT may write int32 sums); types with RKB_DTYPES_FP16
 * read and write fp16; a type with RKB_DTYPES_CAST (an NPU one, or the
 * CPU's Cast) turns one of int8 and fp16 into the other; nothing reads
 * int32.
 */
static int check_dtypes(struct rkb_loader *l, uint32_t i, const struct rkb_op_kind *k)
{
	const struct rkb_model *m = l->m;
	const struct rkb_op *op = &m->ops[i];
	uint32_t in = m->tensors[op->in[0]].dtype, out = m->tensors[op->out].dtype;
	bool in1_ok = op->in[1] == RKB_NONE || m->tensors[op->in[1]].dtype == in;

	if (in == RKB_DT_FP16 && in1_ok && out == RKB_DT_FP16 && (k->dtypes & RKB_DTYPES_FP16))
		return RKB_OK;
	if ((k->dtypes & RKB_DTYPES_CAST) && op->in[1] == RKB_NONE &&
	    ((in == RKB_DT_INT8 && out == RKB_DT_FP16) ||
	     (in == RKB_DT_FP16 && out == RKB_DT_INT8))) {
		int rc;

		if (k->engine == RKB_ENGINE_NPU)
			return RKB_OK;
		rc = rkb_check_name(l, op->cpu_type, "op cpu_type", i);
		if (rc || !strcmp(m->strings + op->cpu_type, RKB_CPU_CAST))
			return rc;
	}
	if (in == RKB_DT_INT8 && in1_ok &&
	    (out == RKB_DT_INT8 || (out == RKB_DT_INT32 && (k->dtypes & RKB_DTYPES_INT32_OUT))))
		return RKB_OK;
	return fail(l, RKB_E_OP, "op[%u]: element types %u -> %u: int8 ops stay int8 (a "
		    "convolution may write int32), fp16 ops stay fp16 (a convert or a CPU Cast "
		    "turns one into the other), nothing reads int32", i, in, out);
}

/* Parent p is whole, and so written, at op i once every view of it is. */
static void whole_when_written(const struct rkb_model *m, uint32_t p, int32_t *def, int32_t i)
{
	for (uint32_t k = 0; k < m->n_views; k++)
		if (m->views[k].parent == p && def[m->views[k].tensor] == INT32_MIN)
			return;
	def[p] = i;
}

/* A parent and its views share their bytes: each of them lives from the
 * first view's write to the last read of any of them. */
static void family_lifetimes(const struct rkb_model *m, int32_t *def, int32_t *last)
{
	for (uint32_t k = 0; k < m->n_views; k++) {
		uint32_t v = m->views[k].tensor, p = m->views[k].parent;
		int32_t end_v = last[v] == INT32_MIN ? def[v] : last[v];

		if (def[v] == INT32_MIN || def[p] == INT32_MIN)
			continue;	/* never written: the flow check said so */
		if (def[v] < def[p])
			def[p] = def[v];
		if (end_v > last[p])
			last[p] = end_v;
	}
	for (uint32_t k = 0; k < m->n_views; k++) {
		uint32_t v = m->views[k].tensor, p = m->views[k].parent;

		if (def[v] != INT32_MIN && def[p] != INT32_MIN) {
			def[v] = def[p];
			last[v] = last[p] == INT32_MIN ? def[p] : last[p];
		}
	}
}

/*
 * Data flow: ops in execution order, each input written before (by an op
 * or as a graph input), each tensor written once, every output written.
 * Plan: nothing an op writes (output, scratch) overlaps a tensor that is
 * still to be read, or a graph output; and no two tensors whose lifetimes
 * meet share arena bytes (docs/FORMAT.md: from the op that writes one, or
 * the start for a graph input, to the last op that reads it, or the end
 * for a graph output), two graph inputs included, which no op writes.
 */
static int check_flow(struct rkb_loader *l)
{
	const struct rkb_model *m = l->m;
	int32_t *def = malloc(m->n_tensors * sizeof(*def));
	int32_t *last = malloc(m->n_tensors * sizeof(*last));
	/* the tensor whose arena bytes each one's are: a view's parent */
	uint32_t *root = malloc((m->n_tensors + 1) * sizeof(*root));
	/* written by an op (a parent so written has views only read) */
	bool *written = calloc(m->n_tensors + 1, sizeof(*written));
	int rc = RKB_OK;

	if (!def || !last || !root || !written) {
		rc = fail(l, RKB_E_NOMEM, "out of memory");
		goto out;
	}
	for (uint32_t t = 0; t < m->n_tensors; t++)
		root[t] = t;
	for (uint32_t k = 0; k < m->n_views; k++)
		root[m->views[k].tensor] = m->views[k].parent;
	for (uint32_t i = 0; i < m->n_ops; i++)
		written[m->ops[i].out] = true;
	for (uint32_t t = 0; t < m->n_tensors; t++)
		def[t] = last[t] = INT32_MIN;
	for (uint32_t i = 0; i < m->n_inputs; i++) {
		if (def[m->inputs[i].tensor] != INT32_MIN) {
			rc = fail(l, RKB_E_IO, "input[%u]: its tensor is another input's", i);
			goto out;
		}
		def[m->inputs[i].tensor] = -1;
	}
	for (uint32_t i = 0; i < m->n_ops && !rc; i++) {
		const struct rkb_op *op = &m->ops[i];

		for (int k = 0; k < 2 && !rc; k++)
			if (op->in[k] != RKB_NONE) {
				if (def[op->in[k]] == INT32_MIN)
					rc = fail(l, RKB_E_OP, "op[%u]: input '%s' is not written "
						  "before it", i, m->strings + m->tensors[op->in[k]].name);
				last[op->in[k]] = (int32_t)i;
			}
		if (!rc && def[op->out] != INT32_MIN)
			rc = fail(l, RKB_E_OP, "op[%u]: output '%s' is written twice", i,
				  m->strings + m->tensors[op->out].name);
		if (!rc && root[op->out] != op->out && written[root[op->out]])
			rc = fail(l, RKB_E_OP, "op[%u]: output '%s' is a view of '%s', which an op "
				  "writes whole", i, m->strings + m->tensors[op->out].name,
				  m->strings + m->tensors[root[op->out]].name);
		def[op->out] = (int32_t)i;
		if (!rc && root[op->out] != op->out)
			whole_when_written(m, root[op->out], def, (int32_t)i);
		for (uint32_t k = 0; !rc && k < m->n_views; k++)
			if (m->views[k].parent == op->out)
				def[m->views[k].tensor] = (int32_t)i;	/* read views */
	}
	for (uint32_t i = 0; i < m->n_outputs && !rc; i++) {
		if (def[m->outputs[i].tensor] == INT32_MIN)
			rc = fail(l, RKB_E_IO, "output[%u] '%s': never written", i,
				  m->strings + m->outputs[i].name);
		last[m->outputs[i].tensor] = (int32_t)m->n_ops;
	}
	if (!rc)
		family_lifetimes(m, def, last);
	for (uint32_t i = 0; i < m->n_ops && !rc; i++) {
		const struct rkb_op *op = &m->ops[i];
		const struct rkb_tensor *o = &m->tensors[op->out];

		for (uint32_t t = 0; t < m->n_tensors && !rc; t++) {
			const struct rkb_tensor *x = &m->tensors[t];

			if (def[t] == INT32_MIN || def[t] >= (int32_t)i || last[t] < (int32_t)i ||
			    root[t] == root[op->out])
				continue;	/* not live while op i runs, or its own parts */
			if (overlap(o->arena_offset, o->arena_bytes, x->arena_offset,
				    x->arena_bytes) ||
			    overlap(op->scratch_offset, op->scratch_bytes, x->arena_offset,
				    x->arena_bytes))
				rc = fail(l, RKB_E_PLAN, "op[%u] writes over '%s', which is still "
					  "read later", i, m->strings + x->name);
		}
		if (!rc && overlap(op->scratch_offset, op->scratch_bytes, o->arena_offset,
				   o->arena_bytes))
			rc = fail(l, RKB_E_PLAN, "op[%u]: scratch overlaps its output", i);
	}
	for (uint32_t t = 0; t < m->n_tensors && !rc; t++) {
		const struct rkb_tensor *x = &m->tensors[t];
		/* written and never read: live while its op runs */
		int32_t end_t = last[t] == INT32_MIN ? def[t] : last[t];

		if (def[t] == INT32_MIN)
			continue;
		for (uint32_t u = t + 1; u < m->n_tensors && !rc; u++) {
			const struct rkb_tensor *y = &m->tensors[u];
			int32_t end_u = last[u] == INT32_MIN ? def[u] : last[u];

			if (def[u] == INT32_MIN || def[t] > end_u || def[u] > end_t ||
			    root[t] == root[u])
				continue;	/* lifetimes do not meet, or one holds the other */
			if (overlap(x->arena_offset, x->arena_bytes, y->arena_offset,
				    y->arena_bytes))
				rc = fail(l, RKB_E_PLAN, "tensors '%s' and '%s' share arena bytes "
					  "while both are live", m->strings + x->name,
					  m->strings + y->name);
		}
	}
out:
	free(def);
	free(last);
	free(root);
	free(written);
	return rc;
}

/*
 * The fields an op's type does not use are 0 (docs/FORMAT.md; its row's
 * `uses`), and an empty range's or scratch's offset. Each is refused by
 * name.
 */
static int check_unused_zero(struct rkb_loader *l, uint32_t i, const struct rkb_op_kind *k)
{
	const struct rkb_op *op = &l->m->ops[i];
	const struct {
		const char *name;
		uint32_t value;
		bool used;
	} f[] = {
		{ "pool", op->pool, k->uses & RKB_USES_POOL },
		{ "act", op->act, k->uses & RKB_USES_ACT },
		{ "w_zp", (uint32_t)op->w_zp, k->uses & RKB_USES_WQUANT },
		{ "w_scale_count", op->w_scale_count, k->uses & RKB_USES_WQUANT },
		{ "w_scale.offset", op->w_scale.offset,
		  (k->uses & RKB_USES_WQUANT) && op->w_scale.bytes },
		{ "w_scale.bytes", op->w_scale.bytes, k->uses & RKB_USES_WQUANT },
		{ "weights.offset", op->weights.offset,
		  (k->uses & (RKB_USES_WEIGHTS | RKB_USES_PARAMS)) && op->weights.bytes },
		{ "weights.bytes", op->weights.bytes,
		  k->uses & (RKB_USES_WEIGHTS | RKB_USES_PARAMS) },
		{ "bias.offset", op->bias.offset, (k->uses & RKB_USES_BIAS) && op->bias.bytes },
		{ "bias.bytes", op->bias.bytes, k->uses & RKB_USES_BIAS },
		{ "mult.offset", op->mult.offset, (k->uses & RKB_USES_BIAS) && op->mult.bytes },
		{ "mult.bytes", op->mult.bytes, k->uses & RKB_USES_BIAS },
		{ "scratch_offset", op->scratch_offset,
		  (k->uses & RKB_USES_SCRATCH) && op->scratch_bytes },
		{ "scratch_bytes", op->scratch_bytes, k->uses & RKB_USES_SCRATCH },
	};

	for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++)
		if (!f[j].used && f[j].value)
			return fail(l, RKB_E_OP, "op[%u].%s: %u, must be 0 for this op", i,
				    f[j].name, f[j].value);
	return RKB_OK;
}

/* Kernel, strides and pads of a type with a window, in the loader's limits. */
static int check_window(struct rkb_loader *l, uint32_t i)
{
	const struct rkb_op *op = &l->m->ops[i];

	if (!op->kh || !op->kw || op->kh > RKB_MAX_KERNEL || op->kw > RKB_MAX_KERNEL ||
	    !op->stride_y || !op->stride_x || op->stride_y > RKB_MAX_KERNEL ||
	    op->stride_x > RKB_MAX_KERNEL || op->pad_top >= op->kh ||
	    op->pad_bottom >= op->kh || op->pad_left >= op->kw || op->pad_right >= op->kw)
		return fail(l, RKB_E_OP, "op[%u]: kernel %ux%u stride %ux%u pads %u,%u,%u,%u", i,
			    op->kh, op->kw, op->stride_y, op->stride_x, op->pad_top,
			    op->pad_left, op->pad_bottom, op->pad_right);
	return RKB_OK;
}

static int check_ops(struct rkb_loader *l)
{
	const struct rkb_model *m = l->m;
	uint64_t tasks = 0;

	if (!m->n_ops)
		return fail(l, RKB_E_OP, "OPS: no ops");
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct rkb_op *op = &m->ops[i];
		const struct rkb_op_kind *k = rkb_op_kind_of(op->type);
		size_t n = 0;
		int rc = rkb_check_name(l, op->name, "op", i);

		if (rc)
			return rc;
		if (op->in[0] >= m->n_tensors || op->out >= m->n_tensors ||
		    (op->in[1] != RKB_NONE && op->in[1] >= m->n_tensors))
			return fail(l, RKB_E_OP, "op[%u]: tensor index out of range (%u tensors)", i,
				    m->n_tensors);
		if (!k) {
			char types[96];

			return fail(l, RKB_E_OP, "op[%u] '%s'.type: %u is not an op type (%s)", i,
				    m->strings + op->name, op->type,
				    rkb_op_kind_list(types, sizeof(types)));
		}
		if (op->reserved)
			return fail(l, RKB_E_OP, "op[%u].reserved: not zero", i);
		if (op->cpu_type && !(k->uses & RKB_USES_CPU_TYPE))
			return fail(l, RKB_E_OP, "op[%u].cpu_type: set on an NPU op", i);
		if (op->act > RKB_ACT_CLIP)
			return fail(l, RKB_E_OP, "op[%u].act: %u", i, op->act);
		rc = check_unused_zero(l, i, k);
		if (!rc && (k->uses & RKB_USES_WINDOW))
			rc = check_window(l, i);
		if (!rc)
			rc = check_dtypes(l, i, k);
		if (!rc)
			rc = k->check(l, i, &n);
		if (rc)
			return rc;
		tasks += n;
	}
	if (tasks != m->plan.tasks)
		return fail(l, RKB_E_PLAN, "plan.tasks: %u, the ops lower to %llu",
			    m->plan.tasks, (unsigned long long)tasks);
	return check_flow(l);
}

/* An edge of set k is the same edge as in set 0: name, kind, layout and
 * rank; only the dimensions may differ. */
static int check_same_edges(struct rkb_loader *l, const struct rkb_io *a, const struct rkb_io *b,
			    uint32_t count, const char *what)
{
	for (uint32_t i = 0; i < count; i++)
		if (a[i].name != b[i].name || a[i].kind != b[i].kind ||
		    a[i].layout != b[i].layout || a[i].rank != b[i].rank)
			return fail(l, RKB_E_IO, "%s[%u]: name, kind, layout or rank differ from "
				    "shape set 0's", what, i);
	return RKB_OK;
}

/* Every check, on the records of the selected set. */
int rkb_check_set(struct rkb_loader *l)
{
	struct rkb_model *m = l->m;
	int rc;

	if (m->plan.reserved[0] || m->plan.reserved[1])
		return fail(l, RKB_E_PLAN, "plan.reserved: not zero");
	rc = check_tensors(l);
	if (!rc)
		rc = check_views(l);
	if (!rc)
		rc = check_io(l, m->inputs, m->n_inputs, "input");
	if (!rc)
		rc = check_io(l, m->outputs, m->n_outputs, "output");
	if (!rc && l->set) {
		rc = check_same_edges(l, m->inputs, m->shapes[0].inputs, m->n_inputs, "input");
		if (!rc)
			rc = check_same_edges(l, m->outputs, m->shapes[0].outputs, m->n_outputs,
					      "output");
	}
	if (!rc)
		rc = check_ops(l);
	return rc;
}
