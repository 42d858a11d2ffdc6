/* SPDX-License-Identifier: MIT */
/*
 * Synchronous exceptions and everything unexpected: the board may emulate a
 * data abort (qemu-virt MMIO trap); anything else prints a crash report
 * and ends the run with BOOT_STATUS_CRASH.
 */
#include <stdbool.h>
#include <stdio.h>

#include "boot/board.h"
#include "boot/boot.h"
#include "boot/exception.h"
#include "sysreg.h"

static const char *const kind_name[] = {
	[EXC_KIND_SYNC] = "synchronous",
	[EXC_KIND_IRQ] = "IRQ",
	[EXC_KIND_FIQ] = "FIQ",
	[EXC_KIND_SERROR] = "SError",
};

static const char *const origin_name[] = {
	"current EL, SP_EL0", "current EL, SP_ELx",
	"lower EL, AArch64", "lower EL, AArch32",
};

const char *exception_class_name(unsigned int ec)
{
	switch (ec) {
	case EC_UNKNOWN:	return "Unknown reason (undefined instruction)";
	case EC_WFX:		return "WFI/WFE trapped";
	case EC_FP_ACCESS:	return "FP/SIMD access trapped";
	case EC_ILLEGAL_STATE:	return "Illegal execution state";
	case EC_SVC64:		return "SVC (AArch64)";
	case EC_HVC64:		return "HVC (AArch64)";
	case EC_SMC64:		return "SMC (AArch64)";
	case EC_SYSREG:		return "System register access trapped";
	case EC_IABT_LOWER:	return "Instruction Abort (lower EL)";
	case EC_IABT_CUR:	return "Instruction Abort (same EL)";
	case EC_PC_ALIGN:	return "PC alignment fault";
	case EC_DABT_LOWER:	return "Data Abort (lower EL)";
	case EC_DABT_CUR:	return "Data Abort (same EL)";
	case EC_SP_ALIGN:	return "SP alignment fault";
	case EC_FP_EXC64:	return "FP exception (AArch64)";
	case EC_SERROR:		return "SError";
	case EC_BREAKPT_CUR:	return "Breakpoint (same EL)";
	case EC_SOFTSTP_CUR:	return "Software step (same EL)";
	case EC_WATCHPT_CUR:	return "Watchpoint (same EL)";
	case EC_BRK64:		return "BRK instruction";
	default:		return "Unrecognised exception class";
	}
}

/* DFSC/IFSC of an abort, for the report. */
static const char *fault_status_name(unsigned int fsc)
{
	switch (fsc) {
	case 0x00: case 0x01: case 0x02: case 0x03:
		return "address size fault";
	case 0x04: case 0x05: case 0x06: case 0x07:
		return "translation fault";
	case 0x09: case 0x0a: case 0x0b:
		return "access flag fault";
	case 0x0d: case 0x0e: case 0x0f:
		return "permission fault";
	case FSC_SYNC_EXTERNAL:
		return "synchronous external abort";
	case 0x21:
		return "alignment fault";
	default:
		return "other fault";
	}
}

static bool is_abort(unsigned int ec)
{
	return ec == EC_IABT_LOWER || ec == EC_IABT_CUR ||
	       ec == EC_DABT_LOWER || ec == EC_DABT_CUR;
}

static void crash_report(const struct exc_frame *f, uint64_t kind)
{
	unsigned int ec = (f->esr >> ESR_EC_SHIFT) & ESR_EC_MASK;
	unsigned int i;

	printf("\n*** rkbare crash: %s exception from %s\n",
	       kind_name[kind & 3], origin_name[(kind >> 2) & 3]);
	printf("  class  %s (EC 0x%02x)\n", exception_class_name(ec), ec);
	printf("  ESR    0x%016llx", (unsigned long long)f->esr);
	if (is_abort(ec)) {
		unsigned int fsc = f->esr & ESR_FSC_MASK;

		printf("  (%s, FSC 0x%02x%s)", fault_status_name(fsc), fsc,
		       ec == EC_DABT_CUR || ec == EC_DABT_LOWER ?
		       (f->esr & ESR_DABT_WNR ? ", write" : ", read") : "");
	}
	printf("\n  FAR    0x%016llx\n", (unsigned long long)f->far);
	printf("  ELR    0x%016llx\n", (unsigned long long)f->elr);
	printf("  SPSR   0x%016llx\n", (unsigned long long)f->spsr);
	printf("  SP     0x%016llx\n", (unsigned long long)f->sp);
	for (i = 0; i < 31; i++)
		printf("  x%-2u 0x%016llx%s", i, (unsigned long long)f->x[i],
		       i % 3 == 2 || i == 30 ? "\n" : "");
}

void exception_handle(struct exc_frame *frame, uint64_t kind)
{
	static bool crashing;
	unsigned int ec = (frame->esr >> ESR_EC_SHIFT) & ESR_EC_MASK;

	if (kind == (EXC_FROM_CUR_SPX | EXC_KIND_SYNC) && ec == EC_DABT_CUR &&
	    !crashing && board_data_abort(frame) == 0)
		return;

	/* A fault while reporting a fault: stop without printing again. */
	if (crashing)
		board_exit(BOOT_STATUS_CRASH);
	crashing = true;
	crash_report(frame, kind);
	board_exit(BOOT_STATUS_CRASH);
}
