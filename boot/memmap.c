/* SPDX-License-Identifier: MIT */
/* Run-time memory layout: which RAM we have and where the DMA region goes. */
#include "boot/memmap.h"

#define LIMIT_4G	(1ull << 32)

static bool overlaps(uint64_t a, uint64_t a_size, uint64_t b, uint64_t b_size)
{
	return a < b + b_size && b < a + a_size;
}

bool memmap_in_ram(const struct boot_layout *layout, uint64_t base, uint64_t size)
{
	unsigned int i;

	if (base + size < base)
		return false;
	for (i = 0; i < layout->ram_count; i++) {
		const struct mem_range *r = &layout->ram[i];

		if (base >= r->base && base + size <= r->base + r->size)
			return true;
	}
	return false;
}

static uint64_t align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

void memmap_place_dma(struct boot_layout *layout)
{
	uint64_t base = align_up(layout->image.base + layout->image.size, MEMMAP_DMA_ALIGN);

	layout->dma.base = 0;
	layout->dma.size = 0;
	/* At most two tries: right after the image, else right after the DTB. */
	if (layout->dtb.size &&
	    overlaps(base, MEMMAP_DMA_SIZE, layout->dtb.base, layout->dtb.size))
		base = align_up(layout->dtb.base + layout->dtb.size, MEMMAP_DMA_ALIGN);
	if (base + MEMMAP_DMA_SIZE > LIMIT_4G ||
	    !memmap_in_ram(layout, base, MEMMAP_DMA_SIZE))
		return;
	layout->dma.base = base;
	layout->dma.size = MEMMAP_DMA_SIZE;
}
