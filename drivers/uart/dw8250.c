/* SPDX-License-Identifier: MIT */
/*
 * DesignWare APB UART, polled transmit. RK3588's binding has reg-shift 2 and
 * reg-io-width 4 (HARDWARE.md §B.1, from rk3588-base.dtsi), so 16550
 * register n sits at n * 4.
 */
#include "drivers/uart/dw8250.h"
#include "hal.h"

#define UART_REG_SHIFT		2
#define UART_THR		(0 << UART_REG_SHIFT)	/* transmit holding */
#define UART_LSR		(5 << UART_REG_SHIFT)	/* line status, 0x14 */
#define UART_LSR_THRE		(1u << 5)		/* THR empty */

/* Polls of a busy transmitter before a character is dropped: a character
 * takes ~7 us at 1.5 Mbaud; this allows far longer. */
#define TX_POLL_LIMIT		1000000u

void dw8250_putc(uintptr_t base, char c)
{
	unsigned int n;

	for (n = 0; n < TX_POLL_LIMIT; n++)
		if (hal_read32(base + UART_LSR) & UART_LSR_THRE)
			break;
	hal_write32(base + UART_THR, (uint8_t)c);
}
