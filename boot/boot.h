/* SPDX-License-Identifier: MIT */
/* The C entry point and the exit statuses the boot itself produces. */
#ifndef RKBARE_BOOT_BOOT_H
#define RKBARE_BOOT_BOOT_H

#include <stdint.h>

/* Exit status when the boot fails (bad bootargs, bad fault spec, unknown
 * self-test, DTB overlapping the image, image outside RAM). */
#define BOOT_STATUS_ERROR	2
/* Exit status of a run that ended in a crash report. */
#define BOOT_STATUS_CRASH	3

/* Called from start.S at EL1, MMU off, .bss zeroed: x0 as the loader passed
 * it (DTB address or 0) and the exception level the image was entered at. */
__attribute__((noreturn)) void boot_main(uintptr_t x0, unsigned int entry_el);

#endif /* RKBARE_BOOT_BOOT_H */
