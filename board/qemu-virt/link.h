/* SPDX-License-Identifier: MIT */
/*
 * qemu-virt link-time layout, included by linker.ld.
 *
 * QEMU loads an arm64 Image with text_offset 0 at RAM base + 2 MiB
 * (0x40200000) and an ELF at its link address; linking there makes both
 * payloads run from the same place. RAM base 0x40000000 holds the DTB QEMU
 * writes for an ELF payload (HARDWARE.md §B.5).
 */
#define LINK_ADDR	0x40200000
#define STACK_SIZE	0x40000		/* 256 KiB; the MMIO trap runs the NPU model on it */
#define HEAP_SIZE	0x2000000	/* 32 MiB for malloc (picolibc sbrk) */
