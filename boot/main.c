/* SPDX-License-Identifier: MIT */
/*
 * C entry of the unikernel: find the DTB, map memory, turn on the MMU and
 * caches, print the banner, parse the boot arguments, set up the board, and
 * run the self-test or the application the arguments select.
 */
#include <stdio.h>

#include "boot/app.h"
#include "boot/board.h"
#include "boot/boot.h"
#include "boot/memmap.h"
#include "boot/mmu.h"
#include "boot/selftest.h"
#include "hal.h"
#include "hal_aarch64.h"
#include "boot/bootargs.h"
#include "boot/fdt.h"
#include "sysreg.h"

/* Largest DTB accepted; QEMU's is 1 MiB, U-Boot's far smaller. */
#define BOOT_DTB_MAX_SIZE	(2u << 20)
#define MIB			(1u << 20)

/* The rkbare.* options this image understands (others draw a warning). */
static const char *const known_options[] = {
	"rkbare.selftest",
	"rkbare.fault",
	"rkbare.model",
	"rkbare.app",
	"rkbare.probe",
	"rkbare.cores",
};

static struct boot_layout layout;
static struct dtb dtb;
static struct bootargs args;

static __attribute__((noreturn)) void boot_fail(const char *what)
{
	hal_err("boot: %s", what);
	board_exit(BOOT_STATUS_ERROR);
}

/*
 * Find and validate the DTB with the MMU off (fdt.c only does byte loads).
 * Returns where it was looked for (0: nowhere); dtb.blob is NULL when none
 * is usable and dtb.error says why.
 */
static uintptr_t find_dtb(uintptr_t x0)
{
	uintptr_t addr = x0 ? x0 : board_dtb_fallback();

	dtb.blob = NULL;
	dtb.error = "none passed";
	if (addr)
		dtb_open(&dtb, (const void *)addr, BOOT_DTB_MAX_SIZE);
	return addr;
}

static void layout_ram(void)
{
	struct dtb_range ram[MEMMAP_MAX_RAM];
	unsigned int i, count = 0;

	if (dtb.blob && dtb_memory(&dtb, ram, MEMMAP_MAX_RAM, &count) == 0 && count) {
		if (count > MEMMAP_MAX_RAM)
			count = MEMMAP_MAX_RAM;
		for (i = 0; i < count; i++) {
			layout.ram[i].base = ram[i].base;
			layout.ram[i].size = ram[i].size;
		}
		layout.ram_count = count;
	} else {
		layout.ram[0] = board_ram_fallback();
		layout.ram_count = 1;
	}
}

/* /chosen/bootargs, or NULL when there is none. */
static const char *dtb_cmdline(void)
{
	const char *cmdline;

	if (!dtb.blob || dtb_bootargs(&dtb, &cmdline))
		return NULL;
	return cmdline;
}

static void print_banner(unsigned int entry_el, uintptr_t dtb_addr)
{
	unsigned int el = (read_sysreg(CurrentEL) >> CURRENTEL_EL_SHIFT) & 3;
	const char *cmdline = dtb_cmdline();
	unsigned int i;

	printf("\nrkbare on %s\n", board_name);
	printf("  exception level: EL%u (entered at EL%u)\n", el, entry_el);
	if (dtb.blob)
		printf("  dtb: 0x%08lx, %u bytes\n", (unsigned long)dtb_addr, dtb.size);
	else if (dtb_addr)
		printf("  dtb: none usable at 0x%08lx (%s)\n", (unsigned long)dtb_addr, dtb.error);
	else
		printf("  dtb: none\n");
	for (i = 0; i < layout.ram_count; i++)
		printf("  RAM: 0x%08llx-0x%08llx (%llu MiB)%s\n",
		       (unsigned long long)layout.ram[i].base,
		       (unsigned long long)(layout.ram[i].base + layout.ram[i].size - 1),
		       (unsigned long long)(layout.ram[i].size / MIB),
		       dtb.blob ? "" : " (board default, no DTB)");
	printf("  image: 0x%08llx-0x%08llx (stack %lu KiB, heap %lu MiB)\n",
	       (unsigned long long)layout.image.base,
	       (unsigned long long)(layout.image.base + layout.image.size - 1),
	       (unsigned long)((uintptr_t)__stack_top - (uintptr_t)__stack_bottom) / 1024,
	       (unsigned long)((uintptr_t)__heap_end - (uintptr_t)__heap_start) / MIB);
	if (layout.dma.size)
		printf("  DMA region: 0x%08llx-0x%08llx (%llu MiB)\n",
		       (unsigned long long)layout.dma.base,
		       (unsigned long long)(layout.dma.base + layout.dma.size - 1),
		       (unsigned long long)(layout.dma.size / MIB));
	else
		printf("  DMA region: none (no room in RAM below 4 GiB)\n");
	printf("  D-cache line: %u bytes\n", (unsigned int)hal_dcache_line());
	printf("  timer: %llu Hz\n", (unsigned long long)hal_counter_freq());
	printf("  bootargs: \"%s\"\n", cmdline ? cmdline : "");
}

void boot_main(uintptr_t x0, unsigned int entry_el)
{
	uintptr_t dtb_addr;
	const char *selftest;
	int status;

	board_console_init();

	dtb_addr = find_dtb(x0);
	layout.image.base = (uintptr_t)_start_image;
	layout.image.size = (uintptr_t)_end - (uintptr_t)_start_image;
	if (dtb.blob) {
		layout.dtb.base = dtb_addr;
		layout.dtb.size = dtb.size;
		/* The stack and heap would overwrite it (and .bss zeroing
		 * may already have). */
		if (layout.dtb.base < layout.image.base + layout.image.size &&
		    layout.image.base < layout.dtb.base + layout.dtb.size)
			boot_fail("the DTB overlaps the image; load it elsewhere");
	}
	layout_ram();
	if (!memmap_in_ram(&layout, layout.image.base, layout.image.size))
		boot_fail("the image does not lie in RAM");
	memmap_place_dma(&layout);

	mmu_enable(&layout);

	print_banner(entry_el, dtb_addr);

	/* Parsed after the banner so that its errors are visible. */
	if (bootargs_parse(&args, dtb_cmdline()))
		board_exit(BOOT_STATUS_ERROR);
	bootargs_warn_unknown(&args, known_options,
			      sizeof(known_options) / sizeof(known_options[0]));

	hal_aarch64_set_dma_region((void *)(uintptr_t)layout.dma.base, layout.dma.size);
	if (board_init(&layout, &args))
		board_exit(BOOT_STATUS_ERROR);

	selftest = bootargs_get(&args, "rkbare.selftest");
	if (selftest)
		status = selftest_run(selftest);
	else
		status = app_run(&args);
	printf("rkbare: exit status %d\n", status);
	board_exit(status);
}
