/* SPDX-License-Identifier: MIT */
/* Bounded register polling, shared by every environment. */
#include <errno.h>

#include "hal.h"

int hal_poll32(uintptr_t addr, uint32_t mask, uint32_t want,
	       uint32_t timeout_us, uint32_t *last)
{
	uint64_t deadline = hal_time_us() + timeout_us;
	uint32_t v;

	for (;;) {
		/* Sample the clock before the register so a value read after
		 * the deadline still counts: no false timeout under preemption. */
		uint64_t now = hal_time_us();

		v = hal_read32(addr);
		if ((v & mask) == want)
			break;
		if (now > deadline) {
			if (last)
				*last = v;
			return -ETIMEDOUT;
		}
	}
	if (last)
		*last = v;
	return 0;
}
