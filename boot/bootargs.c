/* SPDX-License-Identifier: MIT */
/* Boot-argument parser: bounded, validated, no allocation. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "hal.h"
#include "boot/bootargs.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* Printable ASCII: anything else in a command line is a corrupted blob. */
static bool is_text_char(char c)
{
	return c >= 0x20 && c < 0x7f;
}

static int fail(struct bootargs *args, int err, size_t pos, const char *why)
{
	const unsigned char c = (unsigned char)args->buf[pos];

	/* the byte itself only when it is safe to echo; else its code */
	if (c && !is_text_char((char)c))
		hal_err("bootargs: %s (byte 0x%02x) at column %u", why, c, (unsigned int)pos + 1);
	else
		hal_err("bootargs: %s at column %u", why, (unsigned int)pos + 1);
	args->count = 0;
	args->buf[0] = '\0';
	return err;
}

int bootargs_parse(struct bootargs *args, const char *cmdline)
{
	size_t len, i = 0;
	char *s = args->buf;

	args->count = 0;
	args->buf[0] = '\0';
	if (!cmdline)
		return 0;
	len = strnlen(cmdline, BOOTARGS_MAX_LEN + 1);
	if (len > BOOTARGS_MAX_LEN) {
		hal_err("bootargs: command line longer than %u bytes", BOOTARGS_MAX_LEN);
		return -E2BIG;
	}
	memcpy(s, cmdline, len + 1);

	/* Split in place: every option's key and value end with a NUL. */
	for (;;) {
		struct bootargs_option *opt;
		size_t key_start;

		while (is_space(s[i]))
			i++;
		if (!s[i])
			return 0;
		if (args->count == BOOTARGS_MAX_OPTIONS)
			return fail(args, -E2BIG, i, "too many options");
		key_start = i;
		while (is_key_char(s[i]))
			i++;
		if (i == key_start)
			return fail(args, -EINVAL, i, s[i] == '=' ? "empty key" :
				    "invalid character in key");
		if (i - key_start > BOOTARGS_MAX_KEY)
			return fail(args, -ENAMETOOLONG, key_start, "key too long");

		opt = &args->option[args->count];
		opt->key = &s[key_start];
		if (is_space(s[i]) || !s[i]) {
			opt->value = "";
		} else if (s[i] == '=') {
			s[i++] = '\0';
			if (s[i] == '"') {
				opt->value = &s[++i];
				while (s[i] && s[i] != '"') {
					if (!is_text_char(s[i]))
						return fail(args, -EINVAL, i,
							    "control character in value");
					i++;
				}
				if (!s[i])
					return fail(args, -EINVAL, (size_t)(opt->value - s) - 1,
						    "unterminated quote");
				s[i++] = '\0';
				if (s[i] && !is_space(s[i]))
					return fail(args, -EINVAL, i,
						    "text after closing quote");
			} else {
				opt->value = &s[i];
				while (s[i] && !is_space(s[i])) {
					if (s[i] == '"')
						return fail(args, -EINVAL, i,
							    "quote inside unquoted value");
					if (!is_text_char(s[i]))
						return fail(args, -EINVAL, i,
							    "control character in value");
					i++;
				}
			}
		} else {
			return fail(args, -EINVAL, i, "invalid character in key");
		}
		args->count++;
		if (s[i])
			s[i++] = '\0';
	}
}

const char *bootargs_get(const struct bootargs *args, const char *key)
{
	unsigned int i;

	/* Last occurrence wins. */
	for (i = args->count; i-- > 0;)
		if (!strcmp(args->option[i].key, key))
			return args->option[i].value;
	return NULL;
}

unsigned int bootargs_warn_unknown(const struct bootargs *args,
				   const char *const *known, size_t known_count)
{
	size_t prefix_len = strlen(BOOTARGS_PREFIX);
	unsigned int i, unknown = 0;
	size_t k;

	for (i = 0; i < args->count; i++) {
		const char *key = args->option[i].key;

		if (strncmp(key, BOOTARGS_PREFIX, prefix_len))
			continue;
		for (k = 0; k < known_count; k++)
			if (!strcmp(key, known[k]))
				break;
		if (k == known_count) {
			hal_warn("bootargs: unknown option '%s' ignored", key);
			unknown++;
		}
	}
	return unknown;
}

int bootargs_core_list(const char *v, unsigned int cores, uint32_t *mask)
{
	*mask = 0;
	for (const char *p = v;; p += 2) {
		unsigned int core = (unsigned int)(p[0] - '0');

		if (p[0] < '0' || core >= cores || (*mask & (1u << core)) ||
		    (p[1] && p[1] != ',') || (p[1] == ',' && !p[2]))
			break;
		*mask |= 1u << core;
		if (!p[1])
			return 0;
	}
	*mask = 0;
	return -EINVAL;
}
