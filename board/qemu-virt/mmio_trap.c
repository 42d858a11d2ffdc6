/* SPDX-License-Identifier: MIT */
/*
 * Trap-and-emulate of the NPU, PMU and CRU windows on QEMU virt.
 *
 * Those addresses are not backed in QEMU, so an access is a synchronous
 * external abort at EL1 (EC 0x25, DFSC 0x10, FAR = the address). QEMU 7.2
 * gives no instruction syndrome at EL1 (ISV = 0), so the handler decodes
 * the instruction at ELR itself (HARDWARE.md §B.5). hal_read32/
 * hal_write32 compile to single-register 32-bit LDR/STR without writeback;
 * those forms (mmio_insn.c), and nothing else, are emulated.
 */
#include <errno.h>
#include <stdbool.h>

#include "board/qemu-virt/mmio_emulate.h"
#include "board/qemu-virt/mmio_trap.h"
#include "boot/board.h"
#include "hal.h"
#include "boot/bootargs.h"
#include "sim/sim.h"
#include "sysreg.h"

/* Model windows: the RK3588 addresses (HARDWARE.md §B.1, §1.3). */
static const struct mem_range model_windows[] = {
	{ 0xfd7c0000, 0x5c000 },	/* CRU */
	{ 0xfd8d8000, 0x400 },		/* PMU (power domains) */
	{ 0xfdab0000, 0x30000 },	/* NPU cores 0-2 */
};

static struct sim_soc *sim;
static struct boot_layout ram_layout;
static unsigned long trap_count;

static bool in_model_window(uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < sizeof(model_windows) / sizeof(model_windows[0]); i++)
		if (addr >= model_windows[i].base &&
		    addr - model_windows[i].base < model_windows[i].size)
			return true;
	return false;
}

/* The model's DMA: RAM is identity-mapped, anything else is a bus error. */
static uint8_t *bus_map(void *ctx, uint64_t phys, size_t len)
{
	const struct boot_layout *layout = ctx;

	if (!memmap_in_ram(layout, phys, len))
		return NULL;
	return (uint8_t *)(uintptr_t)phys;
}

int mmio_trap_init(const struct boot_layout *layout, const struct bootargs *args)
{
	const struct sim_config cfg = { .powered_at_reset = false };
	struct sim_bus bus = { .map = bus_map, .ctx = &ram_layout };
	const char *fault;
	unsigned int i;

	for (i = 0; i < layout->ram_count; i++) {
		const struct mem_range *r = &layout->ram[i];
		unsigned int w;

		for (w = 0; w < sizeof(model_windows) / sizeof(model_windows[0]); w++)
			if (r->base < model_windows[w].base + model_windows[w].size &&
			    model_windows[w].base < r->base + r->size) {
				hal_err("qemu-virt: RAM 0x%llx+0x%llx covers the NPU model's registers; use -m 2G or less",
					(unsigned long long)r->base, (unsigned long long)r->size);
				return -EINVAL;
			}
	}
	ram_layout = *layout;

	sim = sim_soc_create(&bus, &cfg);
	if (!sim) {
		hal_err("qemu-virt: cannot create the NPU model");
		return -ENOMEM;
	}
	fault = bootargs_get(args, "rkbare.fault");
	if (fault && sim_soc_set_fault(sim, fault)) {
		hal_err("qemu-virt: invalid rkbare.fault='%s': %s (see sim/sim.h for the syntax)",
			fault, sim_soc_last_error(sim));
		sim_soc_destroy(sim);
		sim = NULL;
		return -EINVAL;
	}
	if (fault)
		hal_info("qemu-virt: NPU model faults: %s", fault);
	return 0;
}

int board_data_abort(struct exc_frame *f)
{
	uint64_t addr = f->far;
	uint32_t insn;

	if (!sim || (f->esr & ESR_FSC_MASK) != FSC_SYNC_EXTERNAL ||
	    !in_model_window(addr) ||
	    !memmap_in_ram(&ram_layout, f->elr, sizeof(insn)))
		return -1;
	insn = *(const uint32_t *)(uintptr_t)f->elr;
	if (mmio_emulate(sim, addr, insn, f->esr & ESR_DABT_WNR, f->x))
		return -1;
	f->elr += sizeof(insn);
	trap_count++;
	return 0;
}

unsigned long board_mmio_trap_count(void)
{
	return trap_count;
}
