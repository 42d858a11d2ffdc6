/* SPDX-License-Identifier: MIT */
/*
 * Regcmd disassembler: one entry → "BLOCK.REGISTER field=value ...", decoded
 * with the register table (npu_regs.def); and the text form of a regcmd
 * stream that the host tools exchange (one entry per line, 16 hex digits,
 * optional 0x prefix, '#' starts a comment, blank lines ignored).
 */
#ifndef RKBARE_COMPILER_DISASM_H
#define RKBARE_COMPILER_DISASM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Write the text of entry `e` into buf (always NUL-terminated, truncated to
 * size). Returns 0 when the entry is fully known, 1 when something in it is
 * not (unknown target, unknown register, register of another block, value
 * bits outside every known field, non-zero marker): the text then says what.
 */
int rc_disasm_entry(uint64_t e, char *buf, size_t size);

/*
 * Parse the text form. Fills out[0..*count) (at most cap entries).
 * Returns 0, -EINVAL for a malformed line (*bad_line = its 1-based number),
 * or -ENOSPC when there are more than cap entries.
 */
int rc_parse_text(const char *text, uint64_t *out, size_t cap, size_t *count,
		  unsigned int *bad_line);

#endif /* RKBARE_COMPILER_DISASM_H */
