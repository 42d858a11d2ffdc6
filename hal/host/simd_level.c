// SPDX-License-Identifier: MIT
/*
 * The one place the host build decides its vector paths (simd_level.h):
 * the CPU's features once, the RKBARE_SIMD cap once, the caller's cap.
 * An unknown RKBARE_SIMD value is not fatal (a library does not exit):
 * one warning naming the accepted values, and no cap.
 */
#include "host/simd_level.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"

static const char *const names[SIMD_LEVELS] = { "portable", "avx2", "avx512" };

/* The first call fills these, once, whichever thread makes it. */
static pthread_once_t probed = PTHREAD_ONCE_INIT;
static int cpu, env_cap;
static bool vnni, vbmi;
/* simd_level_set's cap (tests), read by any thread */
static int set_cap = SIMD_AVX512;

static void probe_cpu(void)
{
	int level = SIMD_PORTABLE;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	/* libgcc's and compiler-rt's probes include the OS's XSAVE support */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		level = SIMD_AVX2;
	if (level == SIMD_AVX2 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw"))
		level = SIMD_AVX512;
	vnni = __builtin_cpu_supports("avx512vnni");
	vbmi = __builtin_cpu_supports("avx512vbmi");
#endif
	cpu = level;
}

static void read_env(void)
{
	const char *v = getenv("RKBARE_SIMD");
	int cap = SIMD_AVX512;

	if (v && *v) {
		int i = 0;

		while (i < SIMD_LEVELS && strcmp(v, names[i]))
			i++;
		if (i < SIMD_LEVELS)
			cap = i;
		else
			hal_warn("RKBARE_SIMD=%s is not one of portable, avx2, avx512: ignored",
				 v);
		if (i < SIMD_LEVELS && i > cpu)
			hal_warn("RKBARE_SIMD=%s: this CPU has no %s, %s is used", v, v,
				 names[cpu]);
	}
	env_cap = cap;
}

static void probe(void)
{
	probe_cpu();
	read_env();
}

enum simd_level simd_level_cpu(void)
{
	pthread_once(&probed, probe);
	return (enum simd_level)cpu;
}

enum simd_level simd_level(void)
{
	int level = simd_level_cpu();
	int cap = __atomic_load_n(&set_cap, __ATOMIC_RELAXED);

	if (level > env_cap)
		level = env_cap;
	if (level > cap)
		level = cap;
	return (enum simd_level)level;
}

bool simd_avx512_vnni(void)
{
	return simd_level() == SIMD_AVX512 && vnni;
}

bool simd_avx512_vbmi(void)
{
	return simd_level() == SIMD_AVX512 && vbmi;
}

enum simd_level simd_level_set(enum simd_level cap)
{
	__atomic_store_n(&set_cap, (int)cap, __ATOMIC_RELAXED);
	return simd_level();
}

const char *simd_level_name(enum simd_level level)
{
	return (unsigned)level < SIMD_LEVELS ? names[level] : "?";
}
