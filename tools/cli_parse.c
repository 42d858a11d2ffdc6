/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/cli_parse.h"

#define CLI_READ_CHUNK	65536u

int cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	bool hex;
	const char *digits;
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return -EINVAL;
	hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	digits = hex ? s + 2 : s;
	/* decimal: no leading zero (it would mean octal to strtoull) */
	if (!*digits || !(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)) ||
	    (!hex && digits[0] == '0' && digits[1]))
		return -EINVAL;
	errno = 0;
	v = strtoull(digits, &end, hex ? 16 : 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	bool neg = s && s[0] == '-';
	uint64_t mag;
	int rc = cli_parse_u64(neg ? s + 1 : s, (uint64_t)INT64_MAX + 1u, &mag);

	if (rc)
		return rc;
	if (neg ? mag > (uint64_t)INT64_MAX + 1u : mag > (uint64_t)INT64_MAX)
		return -ERANGE;
	{
		int64_t v = neg ? (mag == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)mag)
				: (int64_t)mag;

		if (v < min || v > max)
			return -ERANGE;
		*out = v;
	}
	return 0;
}

int cli_parse_float(const char *s, float *out)
{
	char *end;
	float v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtof(s, &end);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || isinf(v))
		return -ERANGE;
	if (isnan(v))
		return -EINVAL;
	*out = v;
	return 0;
}

uint8_t *cli_read_file(const char *who, const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "%s: cannot open %s: %s\n", who, path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s is not a regular file\n", who, path);
		goto out;
	}
	for (;;) {
		size_t got;

		if (n + CLI_READ_CHUNK + 1u > cap) {
			size_t want = n + CLI_READ_CHUNK + 1u;
			uint8_t *grown = realloc(buf, want);

			if (!grown) {
				fprintf(stderr, "%s: out of memory reading %s\n", who, path);
				goto fail;
			}
			buf = grown;
			cap = want;
		}
		got = fread(buf + n, 1, CLI_READ_CHUNK, f);
		n += got;
		if (n > max) {
			fprintf(stderr, "%s: %s is larger than %zu bytes\n", who, path, max);
			goto fail;
		}
		if (got < CLI_READ_CHUNK)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: cannot read %s\n", who, path);
		goto fail;
	}
	buf[n] = '\0';
	*len = n;
	goto out;
fail:
	free(buf);
	buf = NULL;
out:
	fclose(f);
	return buf;
}
