/* SPDX-License-Identifier: MIT */
/*
 * picolibc stdio on the board console: stdin/stdout/stderr are one
 * unbuffered write-only stream, so a crash report is never stuck in a
 * buffer. "\n" becomes "\r\n" for serial terminals.
 */
#include <stdio.h>

#include "boot/board.h"

static int console_put(char c, FILE *stream)
{
	if (c == '\n')
		board_console_putc('\r');
	board_console_putc(c);
	return (unsigned char)c;
}

static FILE console = FDEV_SETUP_STREAM(console_put, NULL, NULL, _FDEV_SETUP_WRITE);

FILE *const stdin = &console;
FILE *const stdout = &console;
FILE *const stderr = &console;
