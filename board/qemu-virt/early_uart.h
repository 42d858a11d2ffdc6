/* SPDX-License-Identifier: MIT */
/*
 * The console before anything is set up, for boot/start.S's few messages
 * ahead of C: QEMU virt's PL011 (as drivers/uart/pl011.c drives it; QEMU's
 * is usable without programming).
 */
#define EARLY_UART_BASE		0x09000000
#define EARLY_UART_FR		0x18		/* flag register */
#define EARLY_UART_FR_TXFF_BIT	5		/* transmit FIFO full */

/* early_putc base, ch: waits while the FIFO is full, then sends ch (w). */
.macro early_putc base, ch, tmp
9:	ldr	\tmp, [\base, #EARLY_UART_FR]
	tbnz	\tmp, #EARLY_UART_FR_TXFF_BIT, 9b
	str	\ch, [\base]
.endm
