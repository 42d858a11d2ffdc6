/* SPDX-License-Identifier: MIT */
/*
 * Host implementation of the porting interface, for tests and host tools.
 *
 * Physical memory is one 4 GiB private anonymous mapping reserved without
 * backing (MAP_NORESERVE): pages are committed on first touch, which gives
 * the "lazily allocated model of the whole 32-bit physical space".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "hal.h"
#include "sim/sim_host.h"

#define PHYS_SPACE_SIZE (1ull << 32)

static const struct hal_host_mmio_ops *mmio_ops;
static uint8_t *phys_base;

void hal_host_set_mmio(const struct hal_host_mmio_ops *ops)
{
	mmio_ops = ops;
}

/*
 * MMIO before any device model is attached: the host's "board" is the NPU
 * model (sim/), attached with the silicon's reset state (cores powered
 * down), so a client that calls only rknn_api.h functions runs on the host
 * as it would on a board. Tests attach their own model first.
 */
static void default_device(const char *what, uintptr_t addr)
{
	static const struct sim_config cfg = { .powered_at_reset = false };

	if (mmio_ops || sim_host_attach(&cfg))
		return;
	fprintf(stderr, "hal_host: MMIO %s of 0x%lx: no device model could be attached\n",
		what, (unsigned long)addr);
	abort();
}

uint32_t hal_read32(uintptr_t addr)
{
	default_device("read", addr);
	return mmio_ops->read32(mmio_ops->ctx, addr);
}

void hal_write32(uintptr_t addr, uint32_t value)
{
	default_device("write", addr);
	mmio_ops->write32(mmio_ops->ctx, addr, value);
}

uint8_t *hal_host_phys_base(void)
{
	if (!phys_base) {
		void *p = mmap(NULL, PHYS_SPACE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED) {
			perror("hal_host: cannot reserve the 4 GiB physical space");
			abort();
		}
		phys_base = p;
	}
	return phys_base;
}

/* The host has coherent memory: cache maintenance is a fence. */
void hal_dcache_clean(const void *addr, size_t size)
{
	(void)addr;
	(void)size;
	hal_mb();
}

void hal_dcache_invalidate(void *addr, size_t size)
{
	(void)addr;
	(void)size;
	hal_mb();
}

void hal_dcache_flush(void *addr, size_t size)
{
	(void)addr;
	(void)size;
	hal_mb();
}

size_t hal_dcache_line(void)
{
	return 64;
}

uint64_t hal_counter(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t hal_counter_freq(void)
{
	return 1000000000ull;
}

uint64_t hal_time_us(void)
{
	return hal_counter() / 1000u;
}

void hal_delay_us(uint32_t us)
{
	uint64_t end = hal_time_us() + us;

	while (hal_time_us() < end)
		;
}

uint64_t hal_virt_to_phys(const void *addr)
{
	return (uint64_t)((const uint8_t *)addr - hal_host_phys_base());
}

void *hal_phys_to_virt(uint64_t phys)
{
	if (phys >= PHYS_SPACE_SIZE)
		return NULL;
	return hal_host_phys_base() + phys;
}

int hal_dma_region(void **base, size_t *size)
{
	*base = hal_host_phys_base() + HAL_HOST_DMA_PHYS;
	*size = HAL_HOST_DMA_SIZE;
	return 0;
}

static enum hal_log_level host_log_level = HAL_LOG_WARN;
/* A log line longer than this is cut. */
#define HAL_HOST_LOG_LINE	1024

void hal_host_set_log_level(enum hal_log_level level)
{
	host_log_level = level;
}

void hal_log(enum hal_log_level level, const char *fmt, ...)
{
	static const char *const tag[] = { "E", "W", "I", "D" };
	char line[HAL_HOST_LOG_LINE];
	va_list ap;

	if (level > host_log_level)
		return;
	fprintf(stderr, "[%s] ", tag[level]);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* names from a model or a caller may hold terminal escapes: control
	 * bytes are shown as \xHH, as the image's console does */
	for (const unsigned char *p = (const unsigned char *)line; *p; p++) {
		if (*p < 0x20 ? *p != '\n' && *p != '\t' : *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
	}
	fputc('\n', stderr);
}
