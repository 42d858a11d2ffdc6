/* SPDX-License-Identifier: MIT */
/*
 * Decoder for the instructions the qemu-virt MMIO trap emulates: 32-bit
 * general-register loads and stores without writeback. Pure, so the host
 * tests check it against encodings from the GNU assembler.
 */
#ifndef RKBARE_QEMU_MMIO_INSN_H
#define RKBARE_QEMU_MMIO_INSN_H

#include <stdbool.h>
#include <stdint.h>

/* Rt 31 in these forms is the zero register WZR. */
#define MMIO_INSN_REG_ZERO	31

struct mmio_insn {
	bool store;		/* STR/STUR; else LDR/LDUR (zero-extending) */
	unsigned int rt;	/* transfer register, 0-31 */
};

/* 0 with *out filled, or -1 when `insn` is anything else (other sizes,
 * sign-extending, SIMD, pair, pre/post-index, unprivileged, atomics). */
int mmio_insn_decode(uint32_t insn, struct mmio_insn *out);

#endif /* RKBARE_QEMU_MMIO_INSN_H */
