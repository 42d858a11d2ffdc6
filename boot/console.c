/* SPDX-License-Identifier: MIT */
/*
 * picolibc stdio on the board console: stdin/stdout/stderr are one
 * unbuffered write-only stream, so a crash report is never stuck in a
 * buffer. "\n" becomes "\r\n" for serial terminals; other control
 * bytes are escaped.
 */
#include <stdbool.h>
#include <stdio.h>

#include "boot/board.h"

/* Control bytes other than line breaks and tabs (ESC starting a terminal
 * escape sequence, in a model's names or a caller's strings) are shown as
 * \xHH, never sent to the terminal as they are. */
static bool is_shown(unsigned char c)
{
	return c >= 0x20 ? c != 0x7f : c == '\n' || c == '\r' || c == '\t';
}

static int console_put(char c, FILE *stream)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char u = (unsigned char)c;

	(void)stream;
	if (!is_shown(u)) {
		board_console_putc('\\');
		board_console_putc('x');
		board_console_putc(hex[u >> 4]);
		board_console_putc(hex[u & 0xf]);
		return u;
	}
	if (c == '\n')
		board_console_putc('\r');
	board_console_putc(c);
	return u;
}

static FILE console = FDEV_SETUP_STREAM(console_put, NULL, NULL, _FDEV_SETUP_WRITE);

FILE *const stdin = &console;
FILE *const stdout = &console;
FILE *const stderr = &console;
