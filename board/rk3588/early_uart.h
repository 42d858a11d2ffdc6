/* SPDX-License-Identifier: MIT */
/*
 * The console before anything is set up, for boot/start.S's few messages
 * ahead of C: UART2, the DW 8250 that U-Boot left programmed at 1.5 Mbaud
 * (as drivers/uart/dw8250.c drives it: registers 4 bytes apart).
 */
#define EARLY_UART_BASE		0xfeb50000
#define EARLY_UART_LSR		0x14		/* line status */
#define EARLY_UART_LSR_THRE_BIT	5		/* transmit holding register empty */

/* early_putc base, ch: waits until the THR is empty, then sends ch (w). */
.macro early_putc base, ch, tmp
9:	ldr	\tmp, [\base, #EARLY_UART_LSR]
	tbz	\tmp, #EARLY_UART_LSR_THRE_BIT, 9b
	str	\ch, [\base]
.endm
