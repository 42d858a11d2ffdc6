/* SPDX-License-Identifier: MIT */
/*
 * Image header and entry.
 *
 * Entered from U-Boot booti/bootm (EL2, MMU and caches off, x0 = DTB) or
 * from QEMU -kernel (EL1, or EL2 with virtualization=on; x0 = DTB for an
 * Image, 0 for an ELF). Everything runs at EL1: from EL2 we drop once, with
 * EL1 getting the physical counter and untrapped FP/SIMD, so one set of
 * *_EL1 registers and one data-abort path (ISV = 0, decode at ELR) serve both
 * boards. HARDWARE.md §B.4, §B.6.
 */
#include "sysreg.h"

/* arm64 Image header fields (Linux Documentation/arch/arm64/booting.rst) */
#define IMAGE_MAGIC		0x644d5241	/* "ARM\x64" */
#define IMAGE_FLAG_LE		(0 << 0)
#define IMAGE_FLAG_PAGE_4K	(1 << 1)
#define IMAGE_FLAG_ANYWHERE	(1 << 3)	/* run where loaded, no move to DRAM base */
#define IMAGE_FLAGS		(IMAGE_FLAG_LE | IMAGE_FLAG_PAGE_4K | IMAGE_FLAG_ANYWHERE)

	.section .text.head, "ax"
	.global _start
_start:
	b	primary_entry		/* code0 */
	.long	0			/* code1 */
	.quad	0			/* text_offset */
	.quad	__image_size		/* image_size: through .bss, stack and heap */
	.quad	IMAGE_FLAGS
	.quad	0			/* res2 */
	.quad	0			/* res3 */
	.quad	0			/* res4 */
	.long	IMAGE_MAGIC
	.long	0			/* res5 */

primary_entry:
	/* U-Boot leaves SError unmasked and its own vectors installed. */
	msr	daifset, #0xf
	mov	x19, x0			/* DTB physical address, or 0 */

	mrs	x0, CurrentEL
	lsr	x0, x0, #CURRENTEL_EL_SHIFT
	mov	x20, x0			/* entry exception level, for the banner */
	cmp	x0, #2
	b.eq	el2_entry
	cmp	x0, #1
	b.eq	el1_entry
	/* EL3 (QEMU secure=on with an ELF) is not supported: nothing to report to. */
	b	park

el2_entry:
	adr	x0, el2_vectors
	msr	vbar_el2, x0
	isb

	mov	x0, #HCR_EL2_RW
	msr	hcr_el2, x0
	mov	x0, #(CNTHCTL_EL2_EL1PCTEN | CNTHCTL_EL2_EL1PCEN)
	msr	cnthctl_el2, x0
	msr	cntvoff_el2, xzr
	mov	x0, #CPTR_EL2_RES1
	msr	cptr_el2, x0
	mrs	x0, midr_el1
	msr	vpidr_el2, x0
	mrs	x0, mpidr_el1
	msr	vmpidr_el2, x0

	/* Let EL1 use the GICv3 CPU interface, when there is one. */
	mrs	x0, id_aa64pfr0_el1
	ubfx	x0, x0, #ID_AA64PFR0_GIC_SHIFT, #4
	cbz	x0, 1f
	mov	x0, #ICC_SRE_EL2_INIT
	msr	S3_4_C12_C9_5, x0	/* ICC_SRE_EL2 */
	isb
1:
	ldr	x0, =SCTLR_EL1_RES1
	msr	sctlr_el1, x0
	mov	x0, #SPSR_EL1H_DAIF_MASKED
	msr	spsr_el2, x0
	adr	x0, el1_entry
	msr	elr_el2, x0
	eret

el1_entry:
	ldr	x0, =exception_vectors
	msr	vbar_el1, x0
	msr	spsel, #1
	ldr	x0, =SCTLR_EL1_RES1	/* MMU and caches off until boot/mmu.c */
	msr	sctlr_el1, x0
	mov	x0, #CPACR_EL1_FPEN
	msr	cpacr_el1, x0
	isb

	ldr	x0, =__stack_top
	mov	sp, x0

	/* Zero .tbss and .bss: booti copies only the file (docs/HARDWARE.md §B.4). */
	ldr	x0, =__bss_zero_start
	ldr	x1, =__bss_end
2:	cmp	x0, x1
	b.hs	3f
	stp	xzr, xzr, [x0], #16
	b	2b
3:
	/* TLS block for picolibc's errno. */
	ldr	x0, =__tls_base
	bl	_set_tls

	mov	x0, x19
	mov	x1, x20
	bl	boot_main
	/* boot_main does not return; if it ever does, stop here. */
park:
	wfe
	b	park

/*
 * EL2 vectors for the few instructions before the eret: a fault there has
 * no console yet, so every entry parks the CPU instead of running
 * U-Boot's handlers on a machine we reconfigured.
 */
	.balign	2048
el2_vectors:
	.rept	16
	b	park
	.balign	128
	.endr

	.ltorg
