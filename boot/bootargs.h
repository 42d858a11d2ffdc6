/* SPDX-License-Identifier: MIT */
/*
 * Boot arguments: the command line (/chosen/bootargs, QEMU -append) split
 * into key=value options.
 *
 *   rkbare.selftest=crash  rkbare.fault="poll=3,core=1"  quiet
 *
 * Options are separated by spaces or tabs. A value may be enclosed in
 * double quotes to contain spaces; quotes cannot be escaped. An option
 * without '=' is a flag whose value is "". Keys are [A-Za-z0-9._-]; when a
 * key appears twice the last one wins, as on Linux.
 */
#ifndef RKBARE_BOOTARGS_H
#define RKBARE_BOOTARGS_H

#include <stddef.h>

#define BOOTARGS_MAX_LEN	1024	/* command-line bytes, NUL excluded */
#define BOOTARGS_MAX_OPTIONS	32
#define BOOTARGS_MAX_KEY	64	/* key bytes, NUL excluded */
/* Keys with this prefix belong to rkbare; unknown ones draw a warning. */
#define BOOTARGS_PREFIX		"rkbare."

struct bootargs_option {
	const char *key;
	const char *value;
};

struct bootargs {
	char buf[BOOTARGS_MAX_LEN + 1];
	struct bootargs_option option[BOOTARGS_MAX_OPTIONS];
	unsigned int count;
};

/*
 * Parse `cmdline` (NULL = empty) into *args. Returns 0; or -E2BIG (line
 * or option count over the limits), -ENAMETOOLONG (key too long) or
 * -EINVAL (empty key, bad character, unterminated quote) after logging
 * what was wrong and where. *args is empty after a failure.
 */
int bootargs_parse(struct bootargs *args, const char *cmdline);

/* Value of `key` ("" for a flag), or NULL when absent. */
const char *bootargs_get(const struct bootargs *args, const char *key);

/*
 * Warn about every "rkbare." key not in known[0..known_count); other keys
 * are ignored (they belong to someone else). Returns how many were unknown.
 */
unsigned int bootargs_warn_unknown(const struct bootargs *args,
				   const char *const *known, size_t known_count);

/*
 * A list of cores "N" or "N,N,..." (each below `cores`, each once) as a
 * mask: 0, or -EINVAL for anything else (*mask is then 0). Shared by
 * rkbare.cores= and `rkbare infer --core`.
 */
int bootargs_core_list(const char *v, unsigned int cores, uint32_t *mask);

#endif /* RKBARE_BOOTARGS_H */
