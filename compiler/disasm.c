/* SPDX-License-Identifier: MIT */
/* Regcmd disassembler and the text form of regcmd streams (HARDWARE.md §3). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "rkbare/npu_regs.h"
#include "compiler/disasm.h"

struct text_out {
	char *buf;
	size_t size;
	size_t len;
};

static void out_printf(struct text_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_printf(struct text_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void out_lower(struct text_out *o, const char *s)
{
	for (; *s; s++) {
		char c = *s;

		out_printf(o, "%c", c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
}

static void out_value(struct text_out *o, uint32_t v)
{
	out_printf(o, v < 10 ? "%u" : "0x%x", v);
}

/* Names of the op-enable mask bits (HARDWARE.md §3.4). */
static const struct {
	uint32_t bit;
	const char *name;
} enable_names[] = {
	{ NPU_EN_CNA, "cna" },
	{ NPU_EN_CORE, "core" },
	{ NPU_EN_DPU, "dpu" },
	{ NPU_EN_DPU_RDMA, "dpu_rdma" },
	{ NPU_EN_PPU, "ppu" },
	{ NPU_EN_PPU_RDMA, "ppu_rdma" },
};

static int disasm_op_enable(struct text_out *o, uint32_t value, uint16_t offset)
{
	int flagged = 0;

	out_printf(o, "op_enable mask=0x%x", value);
	for (size_t i = 0; i < sizeof(enable_names) / sizeof(enable_names[0]); i++)
		if (value & enable_names[i].bit)
			out_printf(o, " %s", enable_names[i].name);
	if (value & ~NPU_EN_VALID) {
		out_printf(o, " ?undefined_bits=0x%x", value & ~NPU_EN_VALID);
		flagged = 1;
	}
	if (offset != NPU_RC_OP_EN_OFFSET) {
		out_printf(o, " ?offset=0x%04x", offset);
		flagged = 1;
	}
	return flagged;
}

static int disasm_register(struct text_out *o, int block, uint32_t value, uint16_t offset)
{
	const struct npu_reg_desc *reg = npu_reg_lookup(offset);
	uint32_t known = 0;
	bool has_fields = false;

	out_printf(o, "%s.", npu_block_table[block].name);
	if (!reg || (int)reg->block != block) {
		out_printf(o, "?0x%04x value=0x%x", offset, value);
		if (reg)
			out_printf(o, " ?offset of %s.%s", npu_block_table[reg->block].name,
				   reg->name);
		return 1;
	}
	out_printf(o, "%s", reg->name);
	for (size_t i = 0; i < npu_field_count; i++) {
		const struct npu_field_desc *f = &npu_field_table[i];
		unsigned int width = f->hi - f->lo + 1u;
		uint32_t mask = width >= 32 ? UINT32_MAX : ((1u << width) - 1u);

		if (f->reg_offset != offset)
			continue;
		has_fields = true;
		known |= mask << f->lo;
		out_printf(o, " ");
		out_lower(o, f->name);
		out_printf(o, "=");
		out_value(o, (value >> f->lo) & mask);
	}
	if (!has_fields) {
		out_printf(o, " value=");
		out_value(o, value);
		return 0;
	}
	if (value & ~known)
		out_printf(o, " ?bits=0x%x", value & ~known);
	return (value & ~known) ? 1 : 0;
}

int rc_disasm_entry(uint64_t e, char *buf, size_t size)
{
	struct text_out o = { buf, size, 0 };
	uint16_t target = npu_rc_target(e);
	uint32_t value = npu_rc_value(e);
	uint16_t offset = npu_rc_offset(e);
	int block, flagged = 0;

	if (size)
		buf[0] = '\0';
	if (e == 0) {
		out_printf(&o, "nop");
	} else if (target == NPU_RC_TARGET_MARKER) {
		out_printf(&o, "marker");
		if (value || offset) {
			out_printf(&o, " ?value=0x%x ?offset=0x%04x", value, offset);
			flagged = 1;
		}
	} else if (target == NPU_RC_TARGET_OP_EN) {
		flagged = disasm_op_enable(&o, value, offset);
	} else if ((block = npu_block_of_target(target)) < 0) {
		out_printf(&o, "?target=0x%04x offset=0x%04x value=0x%x", target, offset, value);
		flagged = 1;
	} else {
		flagged = disasm_register(&o, block, value, offset);
	}
	return flagged;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned int hex_value(char c)
{
	if (c <= '9')
		return (unsigned int)(c - '0');
	return (unsigned int)((c | 0x20) - 'a' + 10);
}

int rc_parse_text(const char *text, uint64_t *out, size_t cap, size_t *count,
		  unsigned int *bad_line)
{
	unsigned int line = 1;
	const char *s = text;

	*count = 0;
	*bad_line = 0;
	while (*s) {
		uint64_t v = 0;
		unsigned int digits = 0;

		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		bool prefixed = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

		if (prefixed)
			s += 2;
		while (is_hex(*s)) {
			if (digits < 16)
				v = (v << 4) | hex_value(*s);
			digits++;
			s++;
		}
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '#')
			while (*s && *s != '\n')
				s++;
		if ((*s && *s != '\n') || (digits && digits != 16) || (prefixed && !digits)) {
			*bad_line = line;
			return -EINVAL;
		}
		if (digits) {
			if (*count >= cap)
				return -ENOSPC;
			out[(*count)++] = v;
		}
		if (*s == '\n') {
			s++;
			line++;
		}
	}
	return 0;
}
