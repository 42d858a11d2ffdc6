/* SPDX-License-Identifier: MIT */
/* Default application: nothing to run beyond the boot itself. */
#include "boot/app.h"

int app_run(const struct bootargs *args)
{
	return 0;
}
