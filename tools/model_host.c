/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/sim_host.h"
#include "tools/cli_parse.h"
#include "tools/model_host.h"

/* Larger than any container this NPU's memory could run. */
#define MODEL_HOST_MAX_FILE	(256u << 20)

int model_host_read(const char *who, const char *path, void **blob, size_t *size)
{
	FILE *f;
	struct stat st;
	int rc = -1;

	*blob = NULL;
	if (cli_open_regular(path, &f, &st) || !st.st_size ||
	    (uint64_t)st.st_size > MODEL_HOST_MAX_FILE) {
		fprintf(stderr, "%s: %s: not a readable regular file of 1 byte to %u MiB\n", who,
			path, MODEL_HOST_MAX_FILE >> 20);
		goto out;
	}
	/* malloc's alignment satisfies the loader's 4 bytes. */
	*blob = malloc((size_t)st.st_size);
	if (*blob && fread(*blob, 1, (size_t)st.st_size, f) == (size_t)st.st_size) {
		*size = (size_t)st.st_size;
		rc = 0;
	} else {
		fprintf(stderr, "%s: %s: read failed\n", who, path);
		free(*blob);
		*blob = NULL;
	}
out:
	if (f)
		fclose(f);
	return rc;
}

int model_host_open(const char *who, struct model_host *h, uint32_t core_mask)
{
	const struct sim_config cfg = { .powered_at_reset = false };

	memset(h, 0, sizeof(*h));
	h->soc = sim_host_attach(&cfg);
	if (!h->soc || npu_init(&h->dev, &rk3588_npu_board) ||
	    npu_power_on(&h->dev, core_mask) || dma_pool_init_default(&h->pool)) {
		fprintf(stderr, "%s: cannot bring the NPU model up\n", who);
		model_host_close(h);
		return -1;
	}
	return 0;
}

void model_host_close(struct model_host *h)
{
	if (h->soc)
		sim_host_detach(h->soc);
	h->soc = NULL;
}
