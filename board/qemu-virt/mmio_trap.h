/* SPDX-License-Identifier: MIT */
/*
 * qemu-virt MMIO trap-and-emulate: NPU, PMU and CRU registers are answered
 * by the NPU model (sim/) from the data-abort handler.
 */
#ifndef RKBARE_QEMU_MMIO_TRAP_H
#define RKBARE_QEMU_MMIO_TRAP_H

#include "boot/memmap.h"

struct bootargs;

/* Create the model (bus = RAM of the layout, NPU powered off at reset) and
 * apply rkbare.fault=SPEC. 0, or a negative errno after printing why. */
int mmio_trap_init(const struct boot_layout *layout, const struct bootargs *args);

#endif /* RKBARE_QEMU_MMIO_TRAP_H */
