/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int cli_open_regular(const char *path, FILE **out, struct stat *st)
{
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int flags, rc;

	*out = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		rc = -errno;
	} else if (!S_ISREG(st->st_mode)) {
		rc = -EINVAL;
	} else {
		flags = fcntl(fd, F_GETFL);
		if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
			rc = -errno;
		} else {
			*out = fdopen(fd, "rb");
			if (*out)
				return 0;
			rc = -errno;
		}
	}
	close(fd);
	return rc;
}

uint8_t *cli_read_file(const char *who, const char *path, size_t max, size_t *len)
{
	FILE *f;
	struct stat st;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = cli_open_regular(path, &f, &st);

	if (rc == -EINVAL) {
		fprintf(stderr, "%s: %s is not a regular file\n", who, path);
		return NULL;
	}
	if (rc) {
		fprintf(stderr, "%s: cannot open %s: %s\n", who, path, strerror(-rc));
		return NULL;
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

int cli_mkdirs(const char *path)
{
	size_t len = strlen(path);
	char *p = malloc(len + 1);
	struct stat st;
	int rc = 0;

	if (!p)
		return -ENOMEM;
	memcpy(p, path, len + 1);
	/* each prefix ending before a '/', then the whole path */
	for (size_t i = 1; !rc && i <= len; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0777) && errno != EEXIST)
			rc = -errno;
		else if (stat(p, &st))
			rc = -errno;
		else if (!S_ISDIR(st.st_mode))
			rc = -ENOTDIR;
		p[i] = i < len ? '/' : '\0';
	}
	free(p);
	return rc;
}

int cli_mkdirs_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int rc;

	if (!slash || slash == path)
		return 0;
	dir = malloc((size_t)(slash - path) + 1);
	if (!dir)
		return -ENOMEM;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	rc = cli_mkdirs(dir);
	free(dir);
	return rc;
}

const char *cli_escape(const char *s, char *buf, size_t len)
{
	static const char more[] = "...";
	size_t k = 0;

	if (!len)
		return "";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		/* room for the longest form (\xNN) and the ellipsis */
		if (k + 4 + sizeof(more) > len) {
			memcpy(buf + k, more, sizeof(more));
			return buf;
		}
		if (c == '\\')
			k += (size_t)snprintf(buf + k, len - k, "\\\\");
		else if (c < 0x20 || c >= 0x7f)
			k += (size_t)snprintf(buf + k, len - k, "\\x%02x", c);
		else
			buf[k++] = (char)c;
	}
	buf[k] = '\0';
	return buf;
}

int cli_output_path(const char *dir, const char *name, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/", dir);
	size_t k;

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	k = (size_t)n;
	for (size_t i = 0; name[i]; i++) {
		if (k + 1 >= len)
			return -ENAMETOOLONG;
		path[k++] = name[i] == '/' || name[i] == ':' ? '_' : name[i];
	}
	path[k] = '\0';
	if (k + sizeof(".npy") > len)
		return -ENAMETOOLONG;
	memcpy(path + k, ".npy", sizeof(".npy"));
	return 0;
}

int cli_prepare_outputs(const char *who, const char *dir, const char *const *names, size_t n)
{
	char path[4096], other[4096], e1[CLI_ESCAPED_LEN], e2[CLI_ESCAPED_LEN];
	int rc;

	for (size_t o = 0; o < n; o++) {
		if (cli_output_path(dir, names[o], path, sizeof(path))) {
			fprintf(stderr, "%s: output '%s': the file name is too long\n", who,
				cli_escape(names[o], e1, sizeof(e1)));
			return -ENAMETOOLONG;
		}
		for (size_t k = 0; k < o; k++) {
			cli_output_path(dir, names[k], other, sizeof(other));
			if (!strcmp(path, other)) {
				fprintf(stderr, "%s: outputs '%s' and '%s' would both be written to "
					"%s ('/' and ':' become '_'); rename one\n", who,
					cli_escape(names[k], e1, sizeof(e1)),
					cli_escape(names[o], e2, sizeof(e2)),
					cli_escape(path, other, sizeof(other)));
				return -EEXIST;
			}
		}
	}
	rc = cli_mkdirs(dir);
	if (rc)
		fprintf(stderr, "%s: cannot create %s: %s\n", who, cli_escape(dir, e1, sizeof(e1)),
			strerror(-rc));
	return rc;
}

int cli_split_named(char *arg, const char **name, const char **value)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1])
		return -1;
	*eq = '\0';
	*name = arg;
	*value = eq + 1;
	return 0;
}
