/* SPDX-License-Identifier: MIT */
/*
 * Exception frame shared by boot/vectors.S and the C handlers, and the
 * handler entry points.
 *
 * The frame holds the complete interrupted context, FP/SIMD included: the
 * qemu-virt MMIO trap runs the NPU model (ordinary C, free to use q0-q31)
 * inside the exception and must return to code that relies on them.
 */
#ifndef RKBARE_BOOT_EXCEPTION_H
#define RKBARE_BOOT_EXCEPTION_H

#define FRAME_X		0	/* x0..x30 */
#define FRAME_SP	248
#define FRAME_ELR	256
#define FRAME_SPSR	264
#define FRAME_ESR	272
#define FRAME_FAR	280
#define FRAME_FPSR	288
#define FRAME_FPCR	296
#define FRAME_Q		304	/* q0..q31, 16 bytes each */
#define FRAME_SIZE	816

/* Which of the 16 vector-table entries was taken. */
#define EXC_KIND_SYNC		0
#define EXC_KIND_IRQ		1
#define EXC_KIND_FIQ		2
#define EXC_KIND_SERROR		3
#define EXC_FROM_CUR_SP0	(0 << 2)
#define EXC_FROM_CUR_SPX	(1 << 2)
#define EXC_FROM_LOWER_A64	(2 << 2)
#define EXC_FROM_LOWER_A32	(3 << 2)

#ifndef __ASSEMBLY__
#include <stddef.h>
#include <stdint.h>

struct exc_frame {
	uint64_t x[31];
	uint64_t sp;
	uint64_t elr;
	uint64_t spsr;
	uint64_t esr;
	uint64_t far;
	uint64_t fpsr;
	uint64_t fpcr;
	__uint128_t q[32];
};

_Static_assert(offsetof(struct exc_frame, sp) == FRAME_SP, "frame layout");
_Static_assert(offsetof(struct exc_frame, elr) == FRAME_ELR, "frame layout");
_Static_assert(offsetof(struct exc_frame, esr) == FRAME_ESR, "frame layout");
_Static_assert(offsetof(struct exc_frame, far) == FRAME_FAR, "frame layout");
_Static_assert(offsetof(struct exc_frame, fpsr) == FRAME_FPSR, "frame layout");
_Static_assert(offsetof(struct exc_frame, q) == FRAME_Q, "frame layout");
_Static_assert(sizeof(struct exc_frame) == FRAME_SIZE, "frame layout");
_Static_assert(FRAME_SIZE % 16 == 0, "the stack stays 16-byte aligned");

/* Called by vectors.S; returns only when the exception was handled and
 * the (possibly modified) frame is to be resumed. */
void exception_handle(struct exc_frame *frame, uint64_t kind);

/* Name of an exception class (ESR_ELx.EC). */
const char *exception_class_name(unsigned int ec);

#endif /* __ASSEMBLY__ */
#endif /* RKBARE_BOOT_EXCEPTION_H */
