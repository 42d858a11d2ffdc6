/* SPDX-License-Identifier: MIT */
/* Synopsys DesignWare APB UART (8250/16550 compatible), transmit only. */
#ifndef RKBARE_DW8250_H
#define RKBARE_DW8250_H

#include <stdint.h>

/* The boot loader has set pins, clock and divisor (RK3588: 1.5 Mbaud
 * 8N1); registers are 32 bits wide at a 4-byte stride. */
void dw8250_putc(uintptr_t base, char c);

#endif /* RKBARE_DW8250_H */
