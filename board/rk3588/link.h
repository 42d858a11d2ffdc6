/* SPDX-License-Identifier: MIT */
/*
 * rk3588 link-time layout, included by linker.ld.
 *
 * Linked to run at U-Boot's kernel_addr_r (0x02000000, U-Boot
 * include/configs/rk3588_common.h); loaded elsewhere, boot/start.S moves the
 * image here first (HARDWARE.md §B.4). Image + stack + heap
 * end well below fdt_addr_r (0x12000000).
 */
#define LINK_ADDR	0x02000000
#define STACK_SIZE	0x40000		/* 256 KiB */
#define HEAP_SIZE	0x2000000	/* 32 MiB for malloc (picolibc sbrk) */
