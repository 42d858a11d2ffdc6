/* SPDX-License-Identifier: MIT */
/*
 * .npy reader and writer. The layout (numpy/lib/format.py, "NPY format"):
 * magic "\x93NUMPY", major and minor version bytes, a little-endian header
 * length (2 bytes for 1.0, 4 for 2.0 and 3.0), then an ASCII (3.0: UTF-8)
 * Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}
 * padded with spaces and a newline so the data starts 64-byte aligned.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/cli_parse.h"
#include "tools/onnx/npy.h"

#define NPY_MAGIC	"\x93NUMPY"
#define NPY_MAGIC_LEN	6u
#define NPY_ALIGN	64u
#define NPY_MAX_HEADER	(1u << 16)	/* far above any real header */

static const struct {
	const char *descr;
	size_t size;
} dtypes[NPY_DTYPE_COUNT] = {
	[NPY_F32] = { "<f4", 4 }, [NPY_F16] = { "<f2", 2 }, [NPY_F64] = { "<f8", 8 },
	[NPY_I8] = { "|i1", 1 },  [NPY_U8] = { "|u1", 1 },  [NPY_I16] = { "<i2", 2 },
	[NPY_I32] = { "<i4", 4 }, [NPY_I64] = { "<i8", 8 }, [NPY_BOOL] = { "|b1", 1 },
};

size_t npy_dtype_size(enum npy_dtype dt)
{
	return dt < NPY_DTYPE_COUNT ? dtypes[dt].size : 0;
}

const char *npy_dtype_descr(enum npy_dtype dt)
{
	return dt < NPY_DTYPE_COUNT ? dtypes[dt].descr : "?";
}

static int fail(char *err, size_t err_len, int code, const char *fmt, ...)
{
	va_list ap;

	if (err_len) {
		va_start(ap, fmt);
		vsnprintf(err, err_len, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* Value text of 'key' in the header dict, NULL when absent. */
static const char *dict_value(const char *hdr, const char *key)
{
	char quoted[32];
	const char *p;

	snprintf(quoted, sizeof(quoted), "'%s'", key);
	p = strstr(hdr, quoted);
	if (!p)
		return NULL;
	p += strlen(quoted);
	while (*p == ' ')
		p++;
	if (*p++ != ':')
		return NULL;
	while (*p == ' ')
		p++;
	return p;
}

static int parse_header(const char *hdr, struct npy_array *a, char *err, size_t err_len)
{
	const char *d = dict_value(hdr, "descr");
	const char *f = dict_value(hdr, "fortran_order");
	const char *s = dict_value(hdr, "shape");
	const char *close;
	bool found = false;

	if (!d || !f || !s)
		return fail(err, err_len, -EINVAL, "header lacks descr, fortran_order or shape");
	/* the quoted string, found within the header: a descr that ends it
	 * (no closing quote) is refused, never read past */
	close = *d == '\'' ? strchr(d + 1, '\'') : NULL;
	for (unsigned int i = 0; close && i < NPY_DTYPE_COUNT; i++) {
		size_t n = strlen(dtypes[i].descr);

		/* '|i1' and '<i1' (and '|u1'/'<u1', '|b1') name the same type */
		if ((size_t)(close - d - 1) == n && !strncmp(d + 2, dtypes[i].descr + 1, n - 1) &&
		    (d[1] == dtypes[i].descr[0] || (dtypes[i].size == 1 && d[1] == '<'))) {
			a->dtype = (enum npy_dtype)i;
			found = true;
		}
	}
	if (!found)
		return fail(err, err_len, -ENOTSUP, "element type %.8s is not supported "
			    "(a quoted little-endian f2/f4/f8, i1/u1/i2/i4/i8, b1)", d);
	if (strncmp(f, "False", 5))
		return fail(err, err_len, -ENOTSUP, "Fortran-ordered arrays are not supported");
	if (*s++ != '(')
		return fail(err, err_len, -EINVAL, "shape is not a tuple");
	a->rank = 0;
	a->count = 1;
	for (;;) {
		char *end;
		unsigned long long v;

		while (*s == ' ')
			s++;
		if (*s == ')')
			break;
		if (!isdigit((unsigned char)*s))
			return fail(err, err_len, -EINVAL, "shape holds a non-number");
		errno = 0;
		v = strtoull(s, &end, 10);
		if (errno || a->rank == NPY_MAX_RANK)
			return fail(err, err_len, -EINVAL, "shape too large (rank or size)");
		if (v && a->count > SIZE_MAX / 2 / v)
			return fail(err, err_len, -EINVAL, "shape element count overflows");
		a->shape[a->rank++] = v;
		a->count *= (size_t)v;
		s = end;
		while (*s == ' ')
			s++;
		if (*s == ',')
			s++;
		else if (*s != ')')
			return fail(err, err_len, -EINVAL, "shape tuple is malformed");
	}
	return 0;
}

int npy_read(const char *path, size_t max_bytes, struct npy_array *out, char *err,
	     size_t err_len)
{
	unsigned char pre[NPY_MAGIC_LEN + 2 + 4];
	struct npy_array a = { 0 };
	struct stat st;
	size_t hlen, hoff, bytes;
	char *hdr = NULL;
	FILE *f;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cli_open_regular(path, &f, &st);
	if (rc == -EINVAL)
		return fail(err, err_len, rc, "not a regular file");
	if (rc)
		return fail(err, err_len, rc, "cannot open: %s", strerror(-rc));
	if (fread(pre, 1, NPY_MAGIC_LEN + 2, f) != NPY_MAGIC_LEN + 2 ||
	    memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN)) {
		rc = fail(err, err_len, -EINVAL, "not a .npy file (no \\x93NUMPY magic)");
		goto out;
	}
	if (pre[6] == 1) {
		if (fread(pre + 8, 1, 2, f) != 2)
			goto short_file;
		hlen = pre[8] | (size_t)pre[9] << 8;
		hoff = 10;
	} else if (pre[6] == 2 || pre[6] == 3) {
		if (fread(pre + 8, 1, 4, f) != 4)
			goto short_file;
		hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
		hoff = 12;
	} else {
		rc = fail(err, err_len, -ENOTSUP, "format version %u.%u is not supported", pre[6],
			  pre[7]);
		goto out;
	}
	if (hlen > NPY_MAX_HEADER) {
		rc = fail(err, err_len, -EINVAL, "header of %zu bytes is too long", hlen);
		goto out;
	}
	hdr = malloc(hlen + 1);
	if (!hdr) {
		rc = -ENOMEM;
		goto out;
	}
	if (fread(hdr, 1, hlen, f) != hlen)
		goto short_file;
	hdr[hlen] = '\0';
	rc = parse_header(hdr, &a, err, err_len);
	if (rc)
		goto out;
	/* count × size checked before it is formed: it must not wrap */
	if (a.count > max_bytes / npy_dtype_size(a.dtype)) {
		rc = fail(err, err_len, -EINVAL, "the header's %zu elements of %zu bytes exceed "
			  "the %zu bytes accepted", a.count, npy_dtype_size(a.dtype), max_bytes);
		goto out;
	}
	bytes = a.count * npy_dtype_size(a.dtype);
	if ((uint64_t)st.st_size != hoff + hlen + bytes) {
		rc = fail(err, err_len, -EINVAL, "data is %lld bytes, the header says %zu "
			  "(at most %zu accepted)", (long long)st.st_size - (long long)(hoff + hlen),
			  bytes, max_bytes);
		goto out;
	}
	a.data = malloc(bytes ? bytes : 1);
	if (!a.data) {
		rc = -ENOMEM;
		goto out;
	}
	if (fread(a.data, 1, bytes, f) != bytes) {
		free(a.data);
		goto short_file;
	}
	*out = a;
	rc = 0;
	goto out;
short_file:
	rc = fail(err, err_len, -EINVAL, "file ends early");
out:
	free(hdr);
	fclose(f);
	return rc;
}

int npy_write(const char *path, enum npy_dtype dt, unsigned int rank, const uint64_t *shape,
	      const void *data)
{
	char hdr[256];
	size_t count = 1, len, pad;
	FILE *f;
	int n;

	if (dt >= NPY_DTYPE_COUNT || rank > NPY_MAX_RANK)
		return -EINVAL;
	n = snprintf(hdr, sizeof(hdr), "{'descr': '%s', 'fortran_order': False, 'shape': (",
		     dtypes[dt].descr);
	for (unsigned int i = 0; i < rank; i++) {
		n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, "%llu,%s",
			      (unsigned long long)shape[i], i + 1 < rank ? " " : "");
		count *= (size_t)shape[i];
	}
	/* numpy writes (n,) for rank 1 and (a, b) otherwise; both parse the same */
	if (rank > 1 && hdr[n - 1] == ',')
		n--;
	n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, "), }");
	len = NPY_MAGIC_LEN + 4 + (size_t)n + 1;
	pad = (NPY_ALIGN - len % NPY_ALIGN) % NPY_ALIGN;
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	fwrite(NPY_MAGIC "\x01\x00", 1, NPY_MAGIC_LEN + 2, f);
	fputc((int)(((size_t)n + pad + 1) & 0xff), f);
	fputc((int)(((size_t)n + pad + 1) >> 8), f);
	fwrite(hdr, 1, (size_t)n, f);
	for (size_t i = 0; i < pad; i++)
		fputc(' ', f);
	fputc('\n', f);
	fwrite(data, dtypes[dt].size, count, f);
	n = ferror(f);
	return fclose(f) || n ? -EIO : 0;
}

void npy_free(struct npy_array *a)
{
	free(a->data);
	a->data = NULL;
}
