/* SPDX-License-Identifier: MIT */
/*
 * Self-tests selected by rkbare.selftest=NAME, for the QEMU boot tests:
 *   crash   load from an unmapped address: crash report, non-zero exit
 *   undef   undefined instruction: crash report, non-zero exit
 *   mmio    read the NPU PC VERSION register through the board's MMIO
 *           path (the qemu-virt trap) and check that FP/SIMD registers
 *           survive a trapped access
 *   mmio-wide  a 64-bit read of that register, which the trap must refuse:
 *           crash report, non-zero exit
 */
#ifndef RKBARE_BOOT_SELFTEST_H
#define RKBARE_BOOT_SELFTEST_H

/* Returns the run's exit status (0 = passed); unknown names give an error. */
int selftest_run(const char *name);

#endif /* RKBARE_BOOT_SELFTEST_H */
