/* SPDX-License-Identifier: MIT */
/*
 * Arm PL011 UART (PrimeCell UART TRM, DDI 0183): register offsets and bits
 * used for polled transmit.
 */
#include "drivers/uart/pl011.h"
#include "hal.h"

#define UART_DR			0x00
#define UART_FR			0x18
#define UART_LCR_H		0x2c
#define UART_CR			0x30

#define UART_FR_TXFF		(1u << 5)	/* transmit FIFO full */
#define UART_LCR_H_FEN		(1u << 4)	/* FIFOs enabled */
#define UART_LCR_H_WLEN_8	(3u << 5)	/* 8 data bits, 1 stop, no parity */
#define UART_CR_UARTEN		(1u << 0)
#define UART_CR_TXE		(1u << 8)
#define UART_CR_RXE		(1u << 9)

/* Polls of a full FIFO before a character is dropped: at 115200 baud a
 * character takes ~87 us; this allows far longer. */
#define TX_POLL_LIMIT		1000000u

void pl011_init(uintptr_t base)
{
	uint32_t cr = hal_read32(base + UART_CR);

	/* LCR_H may only change while the UART is disabled. */
	hal_write32(base + UART_CR, cr & ~UART_CR_UARTEN);
	hal_write32(base + UART_LCR_H, UART_LCR_H_WLEN_8 | UART_LCR_H_FEN);
	hal_write32(base + UART_CR, cr | UART_CR_UARTEN | UART_CR_TXE | UART_CR_RXE);
}

void pl011_putc(uintptr_t base, char c)
{
	unsigned int n;

	for (n = 0; n < TX_POLL_LIMIT; n++)
		if (!(hal_read32(base + UART_FR) & UART_FR_TXFF))
			break;
	hal_write32(base + UART_DR, (uint8_t)c);
}
