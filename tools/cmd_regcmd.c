/* SPDX-License-Identifier: MIT */
/* rkbare regcmd: placeholder until the lowering lands. */
#include <stdio.h>

#include "tools/commands.h"

int cmd_regcmd(int argc, char **argv)
{
	fprintf(stderr, "rkbare regcmd: not available yet\n");
	return RKBARE_EXIT_USAGE;
}
