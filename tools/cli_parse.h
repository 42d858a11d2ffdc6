/* SPDX-License-Identifier: MIT */
/*
 * Command-line values of the host tool, parsed strictly and alike in every
 * subcommand: numbers are decimal or 0x-hexadecimal (never octal), with no
 * leading whitespace or '+'; floats must be finite and normal; input files
 * must be regular files and are read to their end (files under /proc
 * report size 0).
 */
#ifndef RKBARE_TOOLS_CLI_PARSE_H
#define RKBARE_TOOLS_CLI_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

/* 0, or -EINVAL (not a number), -ERANGE (above max). */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* An optional '-' then cli_parse_u64's syntax, within [min, max]. */
int cli_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
/* A finite float; -EINVAL (syntax), -ERANGE (overflows or underflows float). */
int cli_parse_float(const char *s, float *out);
/* NAME=VALUE (an --input's NAME=FILE.npy): 0 with *name and *value
 * pointing into arg, whose '=' becomes a NUL; -1, arg untouched, when
 * either side is empty or there is no '='. */
int cli_split_named(char *arg, const char **name, const char **value);

/*
 * Opens a regular file for reading without blocking on a FIFO or device:
 * 0 and *out (st its fstat), -EINVAL when the path is not a regular file,
 * or another negative errno value from open.
 */
int cli_open_regular(const char *path, FILE **out, struct stat *st);

/*
 * Creates directory path and its missing parents, as mkdir -p: 0, or a
 * negative errno value (-ENOTDIR when a component is not a directory).
 */
int cli_mkdirs(const char *path);
/* cli_mkdirs of the directory part of file path (none: 0). */
int cli_mkdirs_parent(const char *path);

/*
 * s for a terminal, in buf of len bytes: printable ASCII as it is, a
 * backslash doubled, every other byte as \xNN (escape sequences in a
 * model's names reach the terminal inert); "..." ends a name too long.
 * Returns buf.
 */
const char *cli_escape(const char *s, char *buf, size_t len);
/* A buffer for cli_escape: names of up to 250 printable (or 60 other)
 * bytes in full. */
#define CLI_ESCAPED_LEN	256u

/*
 * DIR/NAME.npy, the file of graph output NAME: '/' and ':' (TensorFlow's
 * names) become '_', so the file stays in DIR. 0 or -ENAMETOOLONG.
 * Two outputs may map to one file: cli_prepare_outputs refuses that.
 */
int cli_output_path(const char *dir, const char *name, char *path, size_t len);
/*
 * Before the n graph outputs `names` are written to DIR: every file name
 * fits and no two are one file, and DIR exists (cli_mkdirs). 0, or a
 * negative errno value with a message (prefixed by who) on stderr.
 */
int cli_prepare_outputs(const char *who, const char *dir, const char *const *names, size_t n);

/*
 * The whole of a regular file in a malloc'd buffer with one NUL byte
 * after it, at most max bytes. NULL with a message (prefixed by who) on
 * stderr otherwise.
 */
uint8_t *cli_read_file(const char *who, const char *path, size_t max, size_t *len);

#endif /* RKBARE_TOOLS_CLI_PARSE_H */
