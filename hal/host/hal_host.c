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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "hal.h"
#include "sim/sim_host.h"

#define PHYS_SPACE_SIZE (1ull << 32)

static const struct hal_host_mmio_ops *mmio_ops;
static uint8_t *phys_base;
/* Attaching the default model, and reserving the physical space, happen
 * once, whichever thread gets there first. The model maps DMA (the
 * physical space) under mmio_lock: phys_lock is a lock of its own. */
static struct hal_lock setup_lock = HAL_LOCK_INITIALIZER;
static struct hal_lock phys_lock = HAL_LOCK_INITIALIZER;
/*
 * Every register access is one step of the NPU model, under this lock:
 * the model's cores share its power and fault state, and a kick runs
 * the whole job inside the OP_EN write, so accesses are atomic as on a
 * bus. The runtime's own locking is what the test threads exercise.
 */
static struct hal_lock mmio_lock = HAL_LOCK_INITIALIZER;

void hal_lock_init(struct hal_lock *lock)
{
	pthread_mutex_init(&lock->mutex, NULL);
}

/* A failure is a misuse (a destroyed or re-entered mutex): stop there. */
void hal_lock(struct hal_lock *lock)
{
	int err = pthread_mutex_lock(&lock->mutex);

	if (err) {
		fprintf(stderr, "hal_host: hal_lock(%p): %s\n", (void *)lock, strerror(err));
		abort();
	}
}

void hal_unlock(struct hal_lock *lock)
{
	int err = pthread_mutex_unlock(&lock->mutex);

	if (err) {
		fprintf(stderr, "hal_host: hal_unlock(%p): %s\n", (void *)lock, strerror(err));
		abort();
	}
}

void hal_host_set_mmio(const struct hal_host_mmio_ops *ops)
{
	hal_lock(&mmio_lock);
	mmio_ops = ops;
	hal_unlock(&mmio_lock);
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
	bool attached;

	hal_lock(&mmio_lock);
	attached = mmio_ops;
	hal_unlock(&mmio_lock);
	if (attached)
		return;
	hal_lock(&setup_lock);
	hal_lock(&mmio_lock);
	attached = mmio_ops;
	hal_unlock(&mmio_lock);
	/* sim_host_attach sets mmio_ops through hal_host_set_mmio */
	attached = attached || sim_host_attach(&cfg);
	hal_unlock(&setup_lock);
	if (attached)
		return;
	fprintf(stderr, "hal_host: MMIO %s of 0x%lx: no device model could be attached\n",
		what, (unsigned long)addr);
	abort();
}

uint32_t hal_read32(uintptr_t addr)
{
	uint32_t v;

	default_device("read", addr);
	hal_lock(&mmio_lock);
	v = mmio_ops->read32(mmio_ops->ctx, addr);
	hal_unlock(&mmio_lock);
	return v;
}

void hal_write32(uintptr_t addr, uint32_t value)
{
	default_device("write", addr);
	hal_lock(&mmio_lock);
	mmio_ops->write32(mmio_ops->ctx, addr, value);
	hal_unlock(&mmio_lock);
}

uint8_t *hal_host_phys_base(void)
{
	uint8_t *base = __atomic_load_n(&phys_base, __ATOMIC_ACQUIRE);

	if (base)
		return base;
	hal_lock(&phys_lock);
	if (!phys_base) {
		void *p = mmap(NULL, PHYS_SPACE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED) {
			perror("hal_host: cannot reserve the 4 GiB physical space");
			abort();
		}
		__atomic_store_n(&phys_base, p, __ATOMIC_RELEASE);
	}
	hal_unlock(&phys_lock);
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
	flockfile(stderr);	/* one line at a time from several threads */
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
	funlockfile(stderr);
}
