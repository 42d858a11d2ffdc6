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
#include "link.h"
#include "early_uart.h"

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

	/*
	 * Run at the link address. booti runs an Image whose flag bit 3 is set
	 * where it was loaded (moved up to a 2 MiB boundary), and U-Boots
	 * differ in where they load it; the image is not position-independent,
	 * so until the jump below only PC-relative addressing is used. The
	 * file part (header to the end of .tdata) moves to LINK_ADDR, as
	 * memmove would; MMU and D-cache are off (booti's contract, HARDWARE.md
	 * §B.4), so the copy reaches memory, and the I-cache is invalidated
	 * before the jump. A DTB where the image must run, or an address the
	 * 8-byte copy cannot use, is refused on the early UART.
	 */
	adr	x1, _start
	ldr	x2, =LINK_ADDR
	cmp	x1, x2
	b.eq	at_link_addr
	adr	x0, msg_unaligned
	tst	x1, #7
	b.ne	early_refuse
	ldr	x3, =__image_size
	adr	x0, msg_dtb_overlap
	cbz	x19, 1f
	cmp	x19, x2
	b.lo	1f
	add	x4, x2, x3
	cmp	x19, x4
	b.lo	early_refuse
1:	ldr	x3, =__image_file_size	/* a multiple of 16 (linker.ld) */
	cmp	x1, x2
	b.lo	3f
2:	ldp	x4, x5, [x1], #16	/* source above: copy upwards */
	stp	x4, x5, [x2], #16
	subs	x3, x3, #16
	b.ne	2b
	b	4f
3:	add	x1, x1, x3		/* source below: copy downwards */
	add	x2, x2, x3
5:	ldp	x4, x5, [x1, #-16]!
	stp	x4, x5, [x2, #-16]!
	subs	x3, x3, #16
	b.ne	5b
4:	dsb	sy
	ic	iallu
	dsb	sy
	isb
	ldr	x0, =at_link_addr	/* the absolute address: now at LINK_ADDR */
	br	x0

early_refuse:			/* x0: the message, NUL-terminated */
	ldr	x1, =EARLY_UART_BASE
6:	ldrb	w2, [x0], #1
	cbz	w2, park
	early_putc x1, w2, w3
	b	6b

at_link_addr:

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

msg_unaligned:
	.asciz	"rkbare: loaded at an address that is not 8-byte aligned; load the Image at ${kernel_addr_r} and boot it with booti\r\n"
msg_dtb_overlap:
	.asciz	"rkbare: the DTB lies where the image must run (from its link address, image_size bytes); load the DTB elsewhere\r\n"
	.balign	8

	.ltorg
