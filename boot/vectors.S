/* SPDX-License-Identifier: MIT */
/*
 * EL1 exception vectors: every entry saves the whole context into a
 * struct exc_frame on the current stack, calls exception_handle(), and
 * restores the frame (ELR/SPSR included, which the handler may change)
 * when it returns.
 */
#include "boot/exception.h"

.macro	vector kind
	.balign	128
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp, #FRAME_X + 0 * 8]
	mov	x1, #\kind
	b	exception_entry
.endm

	.section .vectors, "ax"
	.global exception_vectors
exception_vectors:
	vector	(EXC_FROM_CUR_SP0 | EXC_KIND_SYNC)
	vector	(EXC_FROM_CUR_SP0 | EXC_KIND_IRQ)
	vector	(EXC_FROM_CUR_SP0 | EXC_KIND_FIQ)
	vector	(EXC_FROM_CUR_SP0 | EXC_KIND_SERROR)
	vector	(EXC_FROM_CUR_SPX | EXC_KIND_SYNC)
	vector	(EXC_FROM_CUR_SPX | EXC_KIND_IRQ)
	vector	(EXC_FROM_CUR_SPX | EXC_KIND_FIQ)
	vector	(EXC_FROM_CUR_SPX | EXC_KIND_SERROR)
	vector	(EXC_FROM_LOWER_A64 | EXC_KIND_SYNC)
	vector	(EXC_FROM_LOWER_A64 | EXC_KIND_IRQ)
	vector	(EXC_FROM_LOWER_A64 | EXC_KIND_FIQ)
	vector	(EXC_FROM_LOWER_A64 | EXC_KIND_SERROR)
	vector	(EXC_FROM_LOWER_A32 | EXC_KIND_SYNC)
	vector	(EXC_FROM_LOWER_A32 | EXC_KIND_IRQ)
	vector	(EXC_FROM_LOWER_A32 | EXC_KIND_FIQ)
	vector	(EXC_FROM_LOWER_A32 | EXC_KIND_SERROR)

	.text
exception_entry:
	stp	x2, x3, [sp, #FRAME_X + 2 * 8]
	stp	x4, x5, [sp, #FRAME_X + 4 * 8]
	stp	x6, x7, [sp, #FRAME_X + 6 * 8]
	stp	x8, x9, [sp, #FRAME_X + 8 * 8]
	stp	x10, x11, [sp, #FRAME_X + 10 * 8]
	stp	x12, x13, [sp, #FRAME_X + 12 * 8]
	stp	x14, x15, [sp, #FRAME_X + 14 * 8]
	stp	x16, x17, [sp, #FRAME_X + 16 * 8]
	stp	x18, x19, [sp, #FRAME_X + 18 * 8]
	stp	x20, x21, [sp, #FRAME_X + 20 * 8]
	stp	x22, x23, [sp, #FRAME_X + 22 * 8]
	stp	x24, x25, [sp, #FRAME_X + 24 * 8]
	stp	x26, x27, [sp, #FRAME_X + 26 * 8]
	stp	x28, x29, [sp, #FRAME_X + 28 * 8]
	add	x2, sp, #FRAME_SIZE		/* sp before the exception */
	stp	x30, x2, [sp, #FRAME_X + 30 * 8]

	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [sp, #FRAME_ELR]
	mrs	x2, esr_el1
	mrs	x3, far_el1
	stp	x2, x3, [sp, #FRAME_ESR]
	mrs	x2, fpsr
	mrs	x3, fpcr
	stp	x2, x3, [sp, #FRAME_FPSR]

	add	x2, sp, #FRAME_Q
	stp	q0, q1, [x2, #0 * 32]
	stp	q2, q3, [x2, #1 * 32]
	stp	q4, q5, [x2, #2 * 32]
	stp	q6, q7, [x2, #3 * 32]
	stp	q8, q9, [x2, #4 * 32]
	stp	q10, q11, [x2, #5 * 32]
	stp	q12, q13, [x2, #6 * 32]
	stp	q14, q15, [x2, #7 * 32]
	stp	q16, q17, [x2, #8 * 32]
	stp	q18, q19, [x2, #9 * 32]
	stp	q20, q21, [x2, #10 * 32]
	stp	q22, q23, [x2, #11 * 32]
	stp	q24, q25, [x2, #12 * 32]
	stp	q26, q27, [x2, #13 * 32]
	stp	q28, q29, [x2, #14 * 32]
	stp	q30, q31, [x2, #15 * 32]

	mov	x0, sp
	bl	exception_handle

	add	x2, sp, #FRAME_Q
	ldp	q0, q1, [x2, #0 * 32]
	ldp	q2, q3, [x2, #1 * 32]
	ldp	q4, q5, [x2, #2 * 32]
	ldp	q6, q7, [x2, #3 * 32]
	ldp	q8, q9, [x2, #4 * 32]
	ldp	q10, q11, [x2, #5 * 32]
	ldp	q12, q13, [x2, #6 * 32]
	ldp	q14, q15, [x2, #7 * 32]
	ldp	q16, q17, [x2, #8 * 32]
	ldp	q18, q19, [x2, #9 * 32]
	ldp	q20, q21, [x2, #10 * 32]
	ldp	q22, q23, [x2, #11 * 32]
	ldp	q24, q25, [x2, #12 * 32]
	ldp	q26, q27, [x2, #13 * 32]
	ldp	q28, q29, [x2, #14 * 32]
	ldp	q30, q31, [x2, #15 * 32]

	ldp	x2, x3, [sp, #FRAME_FPSR]
	msr	fpsr, x2
	msr	fpcr, x3
	ldp	x2, x3, [sp, #FRAME_ELR]
	msr	elr_el1, x2
	msr	spsr_el1, x3

	ldp	x0, x1, [sp, #FRAME_X + 0 * 8]
	ldp	x2, x3, [sp, #FRAME_X + 2 * 8]
	ldp	x4, x5, [sp, #FRAME_X + 4 * 8]
	ldp	x6, x7, [sp, #FRAME_X + 6 * 8]
	ldp	x8, x9, [sp, #FRAME_X + 8 * 8]
	ldp	x10, x11, [sp, #FRAME_X + 10 * 8]
	ldp	x12, x13, [sp, #FRAME_X + 12 * 8]
	ldp	x14, x15, [sp, #FRAME_X + 14 * 8]
	ldp	x16, x17, [sp, #FRAME_X + 16 * 8]
	ldp	x18, x19, [sp, #FRAME_X + 18 * 8]
	ldp	x20, x21, [sp, #FRAME_X + 20 * 8]
	ldp	x22, x23, [sp, #FRAME_X + 22 * 8]
	ldp	x24, x25, [sp, #FRAME_X + 24 * 8]
	ldp	x26, x27, [sp, #FRAME_X + 26 * 8]
	ldp	x28, x29, [sp, #FRAME_X + 28 * 8]
	ldr	x30, [sp, #FRAME_X + 30 * 8]
	add	sp, sp, #FRAME_SIZE
	eret
