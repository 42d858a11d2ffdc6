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

/* 0, or -EINVAL (not a number), -ERANGE (above max). */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* An optional '-' then cli_parse_u64's syntax, within [min, max]. */
int cli_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
/* A finite float; -EINVAL (syntax), -ERANGE (overflows or underflows float). */
int cli_parse_float(const char *s, float *out);

/*
 * The whole of a regular file in a malloc'd buffer with one NUL byte
 * after it, at most max bytes. NULL with a message (prefixed by who) on
 * stderr otherwise.
 */
uint8_t *cli_read_file(const char *who, const char *path, size_t max, size_t *len);

#endif /* RKBARE_TOOLS_CLI_PARSE_H */
