/* SPDX-License-Identifier: MIT */
/* Arm PL011 UART, transmit only (the QEMU virt console). */
#ifndef RKBARE_PL011_H
#define RKBARE_PL011_H

#include <stdint.h>

/* 8N1 with FIFOs, transmitter and receiver enabled; the baud-rate divisor
 * is left as the firmware (or the emulator) set it. */
void pl011_init(uintptr_t base);
void pl011_putc(uintptr_t base, char c);

#endif /* RKBARE_PL011_H */
