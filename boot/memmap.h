/* SPDX-License-Identifier: MIT */
/*
 * The physical memory layout at run time: RAM from the DTB (or the board's
 * fallback), the image/stack/heap from the linker, where the DTB lies, and
 * the DMA region for NPU buffers placed where none of those are.
 */
#ifndef RKBARE_BOOT_MEMMAP_H
#define RKBARE_BOOT_MEMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEMMAP_MAX_RAM		8
/* NPU buffers: the DMA pool's region, below 4 GiB (32-bit NPU addresses). */
#define MEMMAP_DMA_SIZE		(64u << 20)
#define MEMMAP_DMA_ALIGN	(2u << 20)

struct mem_range {
	uint64_t base;
	uint64_t size;
};

struct boot_layout {
	struct mem_range ram[MEMMAP_MAX_RAM];
	unsigned int ram_count;
	struct mem_range image;		/* load address to the end of the heap */
	struct mem_range dtb;		/* size 0: no DTB */
	struct mem_range dma;		/* size 0: no room for one */
};

/* Linker symbols (linker.ld). */
extern char _start_image[], _end[];
extern char __stack_bottom[], __stack_top[];
extern char __heap_start[], __heap_end[];

/* true when [a, a + size) lies inside one of the RAM ranges. */
bool memmap_in_ram(const struct boot_layout *layout, uint64_t base, uint64_t size);

/* Choose layout->dma: the first MEMMAP_DMA_ALIGN-aligned window of
 * MEMMAP_DMA_SIZE bytes after the image that stays in RAM, below 4 GiB,
 * and clear of the DTB. */
void memmap_place_dma(struct boot_layout *layout);

#endif /* RKBARE_BOOT_MEMMAP_H */
