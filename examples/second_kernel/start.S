/* SPDX-License-Identifier: MIT */
/*
 * The second kernel's entry and exception vectors.
 *
 * QEMU virt loads the ELF at its link address and enters _start at EL1
 * (no virtualization=on), MMU and caches off. We set the stack, zero .bss,
 * let EL1 use FP/SIMD (the compiler and the NPU model use it), install the
 * vectors and call kmain(). kmain's status goes back to QEMU through
 * semihosting (-semihosting-config enable=on).
 *
 * Every exception saves the whole interrupted context, FP/SIMD included:
 * the NPU model runs inside the data-abort handler and uses vector
 * registers, while the code it interrupted (any hal_read32 in the library)
 * may hold live values in any of them.
 */

#define CURRENT_EL_EL1		(1 << 2)
#define CPACR_FPEN_NO_TRAP	(3 << 20)

/* struct trap_frame (main.c) */
#define FRAME_X			0		/* x0-x30 */
#define FRAME_ELR		248
#define FRAME_SPSR		256
#define FRAME_ESR		264
#define FRAME_FAR		272
#define FRAME_FPSR		280
#define FRAME_FPCR		288
#define FRAME_Q			304		/* q0-q31, 16-byte aligned */
#define FRAME_SIZE		816		/* a multiple of 16: sp stays aligned */

#define SEMIHOST_SYS_EXIT	0x18
#define ADP_STOPPED_APP_EXIT	0x20026

	.section .text.entry, "ax"
	.global _start
_start:
	msr	daifset, #0xf
	mrs	x1, CurrentEL
	cmp	x1, #CURRENT_EL_EL1
	b.ne	park			/* EL2/EL3: not this example's case */

	msr	spsel, #1
	ldr	x1, =__stack_top
	mov	sp, x1
	ldr	x1, =__bss_start
	ldr	x2, =__bss_end
1:	cmp	x1, x2
	b.hs	2f
	stp	xzr, xzr, [x1], #16
	b	1b
2:	mov	x1, #CPACR_FPEN_NO_TRAP
	msr	cpacr_el1, x1
	ldr	x1, =vectors
	msr	vbar_el1, x1
	isb
	bl	kmain
	b	semihost_exit

/* void semihost_exit(int status): ends the QEMU run with that status. */
	.global semihost_exit
semihost_exit:
	sub	sp, sp, #16
	ldr	x1, =ADP_STOPPED_APP_EXIT
	sxtw	x2, w0
	stp	x1, x2, [sp]
	mov	x1, sp
	mov	x0, #SEMIHOST_SYS_EXIT
	hlt	#0xf000
park:
	wfe
	b	park

/* 16 entries of 0x80 bytes: {current EL with SP0, with SPx, lower EL
 * aarch64, lower EL aarch32} x {sync, IRQ, FIQ, SError}. Each passes its
 * index to trap() in main.c. */
	.macro	vector index
	.balign	0x80
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp, #FRAME_X]
	mov	x0, #\index
	b	trap_entry
	.endm

/* q0-q31 to (stp) or from (ldp) the frame. */
	.macro	fpsimd_pairs op
	\op	q0, q1, [sp, #FRAME_Q + 0 * 16]
	\op	q2, q3, [sp, #FRAME_Q + 2 * 16]
	\op	q4, q5, [sp, #FRAME_Q + 4 * 16]
	\op	q6, q7, [sp, #FRAME_Q + 6 * 16]
	\op	q8, q9, [sp, #FRAME_Q + 8 * 16]
	\op	q10, q11, [sp, #FRAME_Q + 10 * 16]
	\op	q12, q13, [sp, #FRAME_Q + 12 * 16]
	\op	q14, q15, [sp, #FRAME_Q + 14 * 16]
	\op	q16, q17, [sp, #FRAME_Q + 16 * 16]
	\op	q18, q19, [sp, #FRAME_Q + 18 * 16]
	\op	q20, q21, [sp, #FRAME_Q + 20 * 16]
	\op	q22, q23, [sp, #FRAME_Q + 22 * 16]
	\op	q24, q25, [sp, #FRAME_Q + 24 * 16]
	\op	q26, q27, [sp, #FRAME_Q + 26 * 16]
	\op	q28, q29, [sp, #FRAME_Q + 28 * 16]
	\op	q30, q31, [sp, #FRAME_Q + 30 * 16]
	.endm

	.section .text.vectors, "ax"
	.balign	2048
vectors:
	.irp	i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	vector	\i
	.endr

trap_entry:
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
	str	x30, [sp, #FRAME_X + 30 * 8]
	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [sp, #FRAME_ELR]
	mrs	x2, esr_el1
	mrs	x3, far_el1
	stp	x2, x3, [sp, #FRAME_ESR]
	mrs	x2, fpsr
	mrs	x3, fpcr
	stp	x2, x3, [sp, #FRAME_FPSR]
	fpsimd_pairs	stp
	mov	x1, x0
	mov	x0, sp
	bl	trap			/* trap(frame, index): returns only to resume */

	fpsimd_pairs	ldp
	ldp	x2, x3, [sp, #FRAME_FPSR]
	msr	fpsr, x2
	msr	fpcr, x3
	ldp	x2, x3, [sp, #FRAME_ELR]	/* trap() may have stepped ELR */
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

	.ltorg
