/* SPDX-License-Identifier: MIT */
/*
 * What boot/ needs from a board (board/<name>/board.c implements it).
 * Addresses live in the board, never in boot/, drivers/ or runtime/.
 */
#ifndef RKBARE_BOOT_BOARD_H
#define RKBARE_BOOT_BOARD_H

#include <stdint.h>

#include "boot/exception.h"
#include "boot/memmap.h"

struct bootargs;

/* "qemu-virt", "rk3588". */
extern const char board_name[];

/* Console UART: init once, then one character at a time (no CR/LF
 * translation here). Usable with the MMU off. */
void board_console_init(void);
void board_console_putc(char c);

/* Where to look for a DTB when the loader passed none (x0 = 0), or 0. */
uintptr_t board_dtb_fallback(void);
/* RAM assumed when there is no usable DTB. */
struct mem_range board_ram_fallback(void);
/* MMIO ranges mapped Device-nGnRnE, execute-never. */
const struct mem_range *board_mmio_ranges(unsigned int *count);

/* Board set-up after the MMU and the console: returns 0, or a negative
 * errno after printing what was wrong (the run then ends). */
int board_init(const struct boot_layout *layout, const struct bootargs *args);

/* Synchronous data abort at EL1: 0 if the board emulated the access (the
 * frame was updated and is resumed), -1 to report a crash. */
int board_data_abort(struct exc_frame *frame);
/* A 32-bit register the mmio self-test reads (the NPU core 0 PC VERSION
 * register), or 0 when the board has none to offer. */
extern const uintptr_t board_selftest_mmio_reg;
/* Number of MMIO accesses emulated by board_data_abort() so far. */
unsigned long board_mmio_trap_count(void);

/* End the run with a status (QEMU: the emulator's exit status). */
__attribute__((noreturn)) void board_exit(int status);

#endif /* RKBARE_BOOT_BOARD_H */
