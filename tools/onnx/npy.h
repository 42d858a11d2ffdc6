/* SPDX-License-Identifier: MIT */
/*
 * NumPy .npy files (format versions 1.0 to 3.0, as numpy/lib/format.py
 * describes them): the input and output files of `rkbare infer` and the
 * calibration sets of `rkbare compile`. Little-endian, C order only.
 */
#ifndef RKBARE_TOOLS_NPY_H
#define RKBARE_TOOLS_NPY_H

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_RANK	8u

enum npy_dtype {
	NPY_F32,	/* '<f4' */
	NPY_F16,	/* '<f2' */
	NPY_F64,	/* '<f8' */
	NPY_I8,		/* '|i1' */
	NPY_U8,		/* '|u1' */
	NPY_I16,	/* '<i2' */
	NPY_I32,	/* '<i4' */
	NPY_I64,	/* '<i8' */
	NPY_BOOL,	/* '|b1' */
	NPY_DTYPE_COUNT,
};

struct npy_array {
	enum npy_dtype dtype;
	unsigned int rank;
	uint64_t shape[NPY_MAX_RANK];
	size_t count;		/* elements: the product of shape (1 for rank 0) */
	void *data;		/* count × npy_dtype_size(dtype) bytes, malloc'd */
};

size_t npy_dtype_size(enum npy_dtype dt);
const char *npy_dtype_descr(enum npy_dtype dt);

/*
 * Reads a regular file of at most max_bytes. On failure returns a negative
 * errno value with a message naming the problem in err, and allocates
 * nothing. npy_free() releases a loaded array.
 */
int npy_read(const char *path, size_t max_bytes, struct npy_array *out, char *err,
	     size_t err_len);
/* Writes a version 1.0 file. Returns 0 or a negative errno value. */
int npy_write(const char *path, enum npy_dtype dt, unsigned int rank, const uint64_t *shape,
	      const void *data);
void npy_free(struct npy_array *a);

#endif /* RKBARE_TOOLS_NPY_H */
