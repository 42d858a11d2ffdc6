// SPDX-License-Identifier: MIT
/*
 * rkbare sim: run a regcmd stream on the NPU model through the driver,
 * exactly as on hardware: power-up, the BSP PC kick, polled completion.
 *
 * The stream (text form, compiler/disasm.h) is placed at --regcmd-addr; its
 * tasks are found by following each tail's PC_BASE_ADDRESS /
 * PC_REGISTER_AMOUNTS chain (HARDWARE.md §3.3, §3.5); each becomes one
 * task descriptor of one submit. Up to one chain per core (--regcmd given
 * again, each with its --regcmd-addr and --core) run as one multi-core job,
 * as the vendor runtime submits its multi-core chains.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/npu/npu.h"
#include "hal.h"
#include "compiler/disasm.h"
#include "runtime/dma_verify.h"
#include "sim/sim.h"
#include "sim/sim_host.h"
#include "tools/cli_parse.h"
#include "tools/commands.h"

#define SIM_DEFAULT_REGCMD_ADDR	0x08000000u
#define SIM_REGCMD_ALIGN	16u
#define SIM_MAX_ENTRIES		(1u << 20)
#define SIM_MAX_TEXT		(64u << 20)
#define SIM_MAX_FILE		(256u << 20)	/* --load / --save size limit */
#define SIM_MAX_BUFS		16u
#define SIM_MAX_TIMEOUT_MS	600000u
/* One RK3588 NPU core: 1024 int8 multiply-accumulates per cycle at 1 GHz
 * (Rockchip's 6 TOPS for three cores), per millisecond: the work budget a
 * --timeout-ms gives the model. */
#define SIM_NPU_MACS_PER_MS	(1024ull * 1000000ull)
#define PHYS_LIMIT		(1ull << 32)	/* NPU addresses are 32-bit */

struct sim_load {
	uint32_t addr;
	const char *path;
	uint8_t *data;
	size_t len;
};

struct sim_save {
	uint32_t addr;
	uint32_t len;
	const char *path;
};

/* One core's chain: its stream file, where it goes, and what it holds. */
struct sim_chain {
	const char *path;
	uint32_t addr;
	unsigned int core;
	bool addr_set, core_set;
	char *text;
	uint64_t *entries;
	size_t count, stream_bytes;
	struct npu_task *tasks;
	uint32_t task_count;
};

struct sim_opts {
	struct sim_chain chains[NPU_CORE_COUNT];
	unsigned int chain_count;	/* chains[0] exists before its --regcmd */
	uint32_t timeout_ms;
	const char *fault;
	struct sim_load loads[SIM_MAX_BUFS];
	unsigned int load_count;
	struct sim_save saves[SIM_MAX_BUFS];
	unsigned int save_count;
	bool verify;
};

static void __attribute__((format(printf, 1, 2))) sim_err(const char *fmt, ...)
{
	va_list ap;

	fputs("rkbare sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void sim_usage(FILE *out)
{
	fprintf(out,
		"usage: rkbare sim --regcmd FILE [--load ADDR=BINFILE]... [--save ADDR:LEN=BINFILE]...\n"
		"                  [--core N] [--regcmd-addr ADDR] [--fault SPEC] [--timeout-ms N]\n"
		"                  [--verify] [--regcmd FILE --regcmd-addr ADDR --core N]...\n"
		"  Runs a regcmd stream (text form: one 64-bit entry per line) on the NPU model\n"
		"  through the driver: power-up, PC kick, polled completion.\n"
		"  --regcmd FILE         the stream; its tasks are found by following the\n"
		"                        PC_BASE_ADDRESS chain of each task's tail. Given again,\n"
		"                        a further chain for another core: all run as one\n"
		"                        multi-core job; --regcmd-addr and --core then follow\n"
		"                        each further --regcmd and are required\n"
		"  --regcmd-addr ADDR    where the stream is placed (16-byte aligned,\n"
		"                        default 0x%08x)\n"
		"  --load ADDR=BINFILE   copy a file to physical memory before the run\n"
		"  --save ADDR:LEN=FILE  write LEN bytes of physical memory after the run\n"
		"  --core N              NPU core 0..%u (default 0)\n"
		"  --fault SPEC          model fault injection (sim/sim.h)\n"
		"  --verify              refuse the stream unless every address its tasks can\n"
		"                        touch lies in a --load or --save range or the stream\n"
		"                        itself (runtime/dma_verify.h)\n"
		"  --timeout-ms N        job timeout per PC kick (default %u); it also bounds\n"
		"                        the model's work: a kick that would take longer on\n"
		"                        one RK3588 core (1024 MAC/cycle at 1 GHz) stops\n"
		"                        there and times out, as it would on the board\n"
		"  Numbers are decimal or 0x-hex; addresses are 32-bit physical addresses.\n"
		"  Exit status: 0 completed, 1 DMA error or timeout, 2 bad arguments or stream.\n",
		SIM_DEFAULT_REGCMD_ADDR, NPU_CORE_COUNT - 1u, NPU_DEFAULT_TIMEOUT_MS);
}

/* A whole-string unsigned number ≤ max: decimal or 0x-hex (tools/cli_parse.h). */
static bool parse_num(const char *s, uint64_t max, uint64_t *out)
{
	return !cli_parse_u64(s, max, out);
}

static bool parse_addr(const char *opt, const char *s, uint32_t *out)
{
	uint64_t v;

	if (!parse_num(s, PHYS_LIMIT - 1u, &v)) {
		sim_err("%s: '%s' is not a 32-bit physical address", opt, s);
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* Split "ADDR<sep>REST" without modifying argv. */
static bool split_arg(const char *arg, char sep, char *head, size_t head_size,
		      const char **rest)
{
	const char *p = strchr(arg, sep);

	if (!p || (size_t)(p - arg) >= head_size || !p[1])
		return false;
	memcpy(head, arg, (size_t)(p - arg));
	head[p - arg] = '\0';
	*rest = p + 1;
	return true;
}

static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static bool parse_load(struct sim_opts *o, const char *val)
{
	struct sim_load *l = &o->loads[o->load_count];
	char addr[64];

	if (o->load_count == SIM_MAX_BUFS) {
		sim_err("more than %u --load options", SIM_MAX_BUFS);
		return false;
	}
	if (!split_arg(val, '=', addr, sizeof(addr), &l->path)) {
		sim_err("--load '%s': expected ADDR=BINFILE", val);
		return false;
	}
	if (!parse_addr("--load", addr, &l->addr))
		return false;
	o->load_count++;
	return true;
}

static bool parse_save(struct sim_opts *o, const char *val)
{
	struct sim_save *s = &o->saves[o->save_count];
	char addr[64], len[64];
	const char *rest;
	uint64_t v;

	if (o->save_count == SIM_MAX_BUFS) {
		sim_err("more than %u --save options", SIM_MAX_BUFS);
		return false;
	}
	if (!split_arg(val, ':', addr, sizeof(addr), &rest) ||
	    !split_arg(rest, '=', len, sizeof(len), &s->path)) {
		sim_err("--save '%s': expected ADDR:LEN=BINFILE", val);
		return false;
	}
	if (!parse_addr("--save", addr, &s->addr))
		return false;
	if (!parse_num(len, SIM_MAX_FILE, &v) || !v || s->addr + v > PHYS_LIMIT) {
		sim_err("--save '%s': LEN must be 1..%u bytes and end below 4 GiB",
			val, SIM_MAX_FILE);
		return false;
	}
	s->len = (uint32_t)v;
	o->save_count++;
	return true;
}

/* The chain --core and --regcmd-addr apply to: the last --regcmd's. */
static struct sim_chain *cur_chain(struct sim_opts *o)
{
	return &o->chains[o->chain_count ? o->chain_count - 1u : 0u];
}

static bool parse_regcmd_addr(struct sim_opts *o, const char *val)
{
	struct sim_chain *ch = cur_chain(o);

	if (ch->addr_set) {
		sim_err("--regcmd-addr given twice for one --regcmd");
		return false;
	}
	if (!parse_addr("--regcmd-addr", val, &ch->addr))
		return false;
	if (!ch->addr || ch->addr % SIM_REGCMD_ALIGN) {
		sim_err("--regcmd-addr 0x%x: must be non-zero and %u-byte aligned",
			ch->addr, SIM_REGCMD_ALIGN);
		return false;
	}
	ch->addr_set = true;
	return true;
}

static bool parse_regcmd(struct sim_opts *o, const char *val)
{
	if (o->chain_count && o->chains[o->chain_count - 1u].path) {
		if (o->chain_count == NPU_CORE_COUNT) {
			sim_err("more than %u --regcmd chains (one per core)", NPU_CORE_COUNT);
			return false;
		}
		o->chain_count++;
	}
	if (!o->chain_count)
		o->chain_count = 1;
	cur_chain(o)->path = val;
	return true;
}

static bool parse_core(struct sim_opts *o, const char *val)
{
	struct sim_chain *ch = cur_chain(o);
	uint64_t v;

	if (ch->core_set) {
		sim_err("--core given twice for one --regcmd");
		return false;
	}
	if (!parse_num(val, NPU_CORE_COUNT - 1u, &v)) {
		sim_err("--core '%s': expected 0..%u", val, NPU_CORE_COUNT - 1u);
		return false;
	}
	ch->core = (unsigned int)v;
	ch->core_set = true;
	return true;
}

/* Every chain named, further chains placed and on a core of their own. */
static bool check_chains(struct sim_opts *o)
{
	if (!o->chain_count || !o->chains[0].path) {
		sim_err("--regcmd FILE is required");
		return false;
	}
	if (!o->chains[0].addr_set)
		o->chains[0].addr = SIM_DEFAULT_REGCMD_ADDR;
	for (unsigned int i = 1; i < o->chain_count; i++) {
		if (!o->chains[i].addr_set || !o->chains[i].core_set) {
			sim_err("--regcmd %s: a further chain needs its own --regcmd-addr and --core",
				o->chains[i].path);
			return false;
		}
		for (unsigned int k = 0; k < i; k++) {
			if (o->chains[k].core == o->chains[i].core) {
				sim_err("--regcmd %s and %s both on core %u (one chain per core)",
					o->chains[k].path, o->chains[i].path, o->chains[i].core);
				return false;
			}
		}
	}
	return true;
}

/* 0: options in *o; 1: help printed; -1: bad option (message printed). */
static int parse_opts(int argc, char **argv, struct sim_opts *o)
{
	uint64_t v;
	bool ok;
	int i;

	*o = (struct sim_opts){ .timeout_ms = NPU_DEFAULT_TIMEOUT_MS };
	for (i = 1; i < argc; i += 2) {
		const char *opt = argv[i];
		const char *val = argv[i + 1];

		if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
			sim_usage(stdout);
			return 1;
		}
		if (!strcmp(opt, "--verify")) {	/* the one option without a value */
			o->verify = true;
			i--;
			continue;
		}
		if (!val) {
			sim_err("%s needs a value (or is unknown)", opt);
			return -1;
		}
		if (!strcmp(opt, "--regcmd")) {
			ok = parse_regcmd(o, val);
		} else if (!strcmp(opt, "--regcmd-addr")) {
			ok = parse_regcmd_addr(o, val);
		} else if (!strcmp(opt, "--load")) {
			ok = parse_load(o, val);
		} else if (!strcmp(opt, "--save")) {
			ok = parse_save(o, val);
		} else if (!strcmp(opt, "--fault")) {
			o->fault = val;
			ok = true;
		} else if (!strcmp(opt, "--core")) {
			ok = parse_core(o, val);
		} else if (!strcmp(opt, "--timeout-ms")) {
			ok = parse_num(val, SIM_MAX_TIMEOUT_MS, &v) && v;
			if (ok)
				o->timeout_ms = (uint32_t)v;
			else
				sim_err("--timeout-ms '%s': expected 1..%u", val,
					SIM_MAX_TIMEOUT_MS);
		} else {
			sim_err("unknown option '%s'", opt);
			ok = false;
		}
		if (!ok)
			return -1;
	}
	return check_chains(o) ? 0 : -1;
}

/* Whole regular file into a malloc'd buffer (one extra NUL byte), ≤ max bytes. */
static uint8_t *read_file(const char *path, size_t max, size_t *len)
{
	return cli_read_file("rkbare sim", path, max, len);
}

static bool is_pc_write(uint64_t e, uint16_t offset)
{
	return npu_rc_target(e) == NPU_PC_TARGET && npu_rc_offset(e) == offset;
}

/* Completion event of a task from the blocks it enables: the last block
 * of the pipeline raises it (HARDWARE.md §2.2: DPU → 0x300, PPU → 0xC00). */
static uint32_t task_int_mask(uint32_t enable)
{
	if (enable & (NPU_EN_PPU | NPU_EN_PPU_RDMA))
		return NPU_INT_PPU;
	if (enable & NPU_EN_DPU)
		return NPU_INT_DPU;
	return 0;
}

/* The PC fetches REGISTER_AMOUNTS + 1 units of this many qwords (HARDWARE.md §2.4). */
#define PC_FETCH_UNIT_QWORDS	2u

/* Tail positions counted back from the op-enable entry (HARDWARE.md §3.3). */
#define TAIL_NEXT_BASE		3u
#define TAIL_NEXT_AMOUNT	2u
#define TAIL_MARKER		1u

/*
 * Follow the chain from entry 0: a task ends at its op-enable entry, after
 * the 4-entry tail (next PC_BASE_ADDRESS or a zero qword, PC_REGISTER_AMOUNTS
 * or a zero qword, the 0x0041 marker) or, ending the chain, with none.
 * Fills tasks[] (capacity count / 4). Returns the number of tasks, or 0 after printing what is malformed.
 */
static uint32_t split_tasks(const char *name, const uint64_t *e, size_t count, uint32_t base,
			    struct npu_task *tasks)
{
	const uint64_t marker = npu_rc_entry(NPU_RC_TARGET_MARKER, 0, 0);
	uint32_t *owner = calloc(count, sizeof(*owner));	/* task index + 1 */
	uint32_t n = 0, fetched = 0;
	size_t idx = 0, end, j;
	bool ok = false;

	if (!owner) {
		sim_err("out of memory");
		return 0;
	}
	for (;;) {
		uint64_t next_e, amount_e;
		uint32_t next, enable, amount;
		size_t len;
		bool bare;

		for (end = idx; end < count && npu_rc_target(e[end]) != NPU_RC_TARGET_OP_EN; end++)
			;
		if (end == count) {
			sim_err("%s: task %u (entry %zu) has no op-enable entry ending it",
				name, n, idx);
			goto out;
		}
		len = end - idx + 1;
		if (len < NPU_RC_TAIL_QWORDS) {
			sim_err("%s: task %u has %zu entries, fewer than the %u-entry tail",
				name, n, len, NPU_RC_TAIL_QWORDS);
			goto out;
		}
		if (fetched && fetched < len) {
			sim_err("%s: task %u: the previous tail's PC_REGISTER_AMOUNTS fetches %u qwords, the task has %zu",
				name, n, fetched, len);
			goto out;
		}
		/* A bare op_en (no marker, no tail) ends the chain, as in the
		 * board-run Rocket streams (sim/ASSUMPTIONS.md A7). */
		bare = e[end - TAIL_MARKER] != marker;
		next_e = bare ? 0 : e[end - TAIL_NEXT_BASE];
		/* An entry for no block there ends the chain like a zero qword
		 * (the model ignores it; sim/pc.c). */
		if (npu_rc_target(next_e) == NPU_RC_TARGET_WRITE)
			next_e = 0;
		amount_e = bare ? 0 : e[end - TAIL_NEXT_AMOUNT];
		if ((next_e && !is_pc_write(next_e, NPU_PC_BASE_ADDRESS)) ||
		    (amount_e && !is_pc_write(amount_e, NPU_PC_REGISTER_AMOUNTS))) {
			sim_err("%s: task %u: entries %zu..%zu are not the tail (PC_BASE_ADDRESS, PC_REGISTER_AMOUNTS, 0x0041 marker, op-enable)",
				name, n, end - TAIL_NEXT_BASE, end);
			goto out;
		}
		enable = npu_rc_value(e[end]);
		tasks[n] = (struct npu_task){
			.enable_mask = enable,
			.int_mask = task_int_mask(enable),
			.int_clear = NPU_INT_CLEAR_ALL,
			.regcfg_amount = (uint32_t)(len - NPU_RC_TAIL_QWORDS),
			.regcmd_addr = base + idx * sizeof(uint64_t),
		};
		if (!tasks[n].int_mask) {
			sim_err("%s: task %u enables neither DPU nor PPU (op-enable 0x%x): no completion event",
				name, n, enable);
			goto out;
		}
		for (j = idx; j <= end; j++) {
			if (owner[j]) {
				sim_err("%s: task %u overlaps task %u", name, n, owner[j] - 1u);
				goto out;
			}
			owner[j] = n + 1u;
		}
		n++;

		next = npu_rc_value(next_e);
		if (!next)
			break;
		if (next % SIM_REGCMD_ALIGN || next < base ||
		    next - base >= count * sizeof(uint64_t)) {
			sim_err("%s: task %u chains to 0x%08x, not a 16-byte aligned entry of the stream [0x%08x, +0x%zx)",
				name, n - 1u, next, base, count * sizeof(uint64_t));
			goto out;
		}
		idx = (next - base) / sizeof(uint64_t);
		if (owner[idx]) {
			sim_err("%s: task %u chains back into task %u",
				name, n - 1u, owner[idx] - 1u);
			goto out;
		}
		amount = NPU_FG(PC, REGISTER_AMOUNTS, PC_DATA_AMOUNT, npu_rc_value(amount_e));
		fetched = (amount + 1u) * PC_FETCH_UNIT_QWORDS;
	}
	for (j = 0; j < count; j++) {
		if (e[j] && !owner[j]) {
			sim_err("%s: entry %zu (0x%016" PRIx64 ") is in no task of the chain",
				name, j, e[j]);
			goto out;
		}
	}
	ok = true;
out:
	free(owner);
	return ok ? n : 0;
}

static bool write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (!f) {
		sim_err("cannot create %s: %s", path, strerror(errno));
		return false;
	}
	ok = fwrite(data, 1, len, f) == len;
	ok = !fclose(f) && ok;
	if (!ok)
		sim_err("cannot write %s", path);
	return ok;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (unsigned int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Check the memory layout, then copy streams and files into model memory. */
static int place_inputs(const struct sim_opts *o)
{
	unsigned int i, k;

	for (i = 0; i < o->chain_count; i++) {
		const struct sim_chain *ch = &o->chains[i];

		if (ch->addr + (uint64_t)ch->stream_bytes > PHYS_LIMIT) {
			sim_err("the stream %s (%zu bytes) at 0x%08x crosses 4 GiB", ch->path,
				ch->stream_bytes, ch->addr);
			return -1;
		}
		for (k = 0; k < i; k++) {
			if (ranges_overlap(ch->addr, ch->stream_bytes, o->chains[k].addr,
					   o->chains[k].stream_bytes)) {
				sim_err("the stream %s at 0x%08x overlaps the stream %s",
					ch->path, ch->addr, o->chains[k].path);
				return -1;
			}
		}
	}
	for (i = 0; i < o->load_count; i++) {
		const struct sim_load *l = &o->loads[i];

		if (l->addr + (uint64_t)l->len > PHYS_LIMIT) {
			sim_err("--load %s (%zu bytes) at 0x%08x crosses 4 GiB",
				l->path, l->len, l->addr);
			return -1;
		}
		for (k = 0; k < o->chain_count; k++) {
			if (ranges_overlap(l->addr, l->len, o->chains[k].addr,
					   o->chains[k].stream_bytes)) {
				sim_err("--load %s at 0x%08x overlaps the stream at 0x%08x",
					l->path, l->addr, o->chains[k].addr);
				return -1;
			}
		}
		for (k = 0; k < i; k++) {
			if (ranges_overlap(l->addr, l->len, o->loads[k].addr, o->loads[k].len)) {
				sim_err("--load %s overlaps --load %s",
					l->path, o->loads[k].path);
				return -1;
			}
		}
	}

	for (i = 0; i < o->chain_count; i++) {
		const struct sim_chain *ch = &o->chains[i];
		uint8_t *dst = hal_phys_to_virt(ch->addr);

		memset(dst, 0, ch->stream_bytes);
		for (size_t j = 0; j < ch->count; j++)
			put_le64(dst + j * sizeof(uint64_t), ch->entries[j]);
	}
	for (i = 0; i < o->load_count; i++)
		memcpy(hal_phys_to_virt(o->loads[i].addr), o->loads[i].data, o->loads[i].len);
	return 0;
}

/* --verify: the job may touch the streams and the --load / --save ranges only. */
static int verify(const struct sim_opts *o)
{
	struct dv_range owned[2 * SIM_MAX_BUFS + NPU_CORE_COUNT];
	size_t n = 0;
	uint32_t tasks = 0;
	char why[256];

	for (unsigned int i = 0; i < o->chain_count; i++)
		owned[n++] = (struct dv_range){ o->chains[i].addr, o->chains[i].stream_bytes,
						"stream" };
	for (unsigned int i = 0; i < o->load_count; i++)
		owned[n++] = (struct dv_range){ o->loads[i].addr, o->loads[i].len, "--load" };
	for (unsigned int i = 0; i < o->save_count; i++)
		owned[n++] = (struct dv_range){ o->saves[i].addr, o->saves[i].len, "--save" };
	for (unsigned int i = 0; i < o->chain_count; i++) {
		const struct sim_chain *ch = &o->chains[i];

		if (dv_check_job(ch->tasks, ch->task_count, ch->entries, ch->addr, ch->count,
				 owned, n, why, sizeof(why))) {
			sim_err("--verify: %s%s%s", o->chain_count > 1 ? ch->path : "",
				o->chain_count > 1 ? ": " : "", why);
			return -1;
		}
		tasks += ch->task_count;
	}
	printf("verify: %u task(s), every address inside the stream and the --load/--save "
	       "ranges\n", tasks);
	return 0;
}

/* A multi-core job's failure, with the model's diagnostic. */
static void print_failure(struct sim_soc *soc, const char *what, unsigned int core_mask,
			  int err)
{
	sim_err("%s cores 0x%x: %s%s%s", what, core_mask, npu_strerror(err),
		*sim_soc_last_error(soc) ? ": " : "", sim_soc_last_error(soc));
}

static int run(const struct sim_opts *o)
{
	struct npu_buf inputs[SIM_MAX_BUFS + NPU_CORE_COUNT], outputs[SIM_MAX_BUFS];
	const struct sim_config cfg = { .powered_at_reset = false };
	struct npu_task *tasks, *last;
	struct npu_submit submit;
	struct sim_soc *soc;
	struct npu_dev dev;
	unsigned int i, mask = 0, cores = 0, n_in = 0;
	uint32_t total = 0;
	int ret = RKBARE_EXIT_FAIL;
	int err;

	for (i = 0; i < o->chain_count; i++) {
		mask |= 1u << o->chains[i].core;
		total += o->chains[i].task_count;
		cores++;
	}
	tasks = calloc(total, sizeof(*tasks));
	if (!tasks) {
		sim_err("out of memory");
		return RKBARE_EXIT_FAIL;
	}
	submit = (struct npu_submit){
		.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG,
		.timeout_ms = o->timeout_ms,
		.task_number = total,
		.core_mask = mask,
		.tasks = tasks,
		.task_count = total,
	};
	total = 0;
	for (i = 0; i < o->chain_count; i++) {
		const struct sim_chain *ch = &o->chains[i];
		/* Core c runs subcore_task[c], or [c + 2] with three cores in the
		 * mask (BSP rule, HARDWARE.md §2.5). */
		unsigned int slot = ch->core + (cores == 3u ? 2u : 0u);

		memcpy(tasks + total, ch->tasks, ch->task_count * sizeof(*tasks));
		submit.subcore_task[slot] = (struct npu_subcore_task){ total, ch->task_count };
		total += ch->task_count;
		inputs[n_in++] = (struct npu_buf){ hal_phys_to_virt(ch->addr), ch->stream_bytes };
	}
	last = &tasks[total - 1u];

	soc = sim_host_attach(&cfg);
	if (!soc) {
		sim_err("cannot create the NPU model");
		free(tasks);
		return RKBARE_EXIT_FAIL;
	}
	sim_soc_set_work_budget(soc, (uint64_t)o->timeout_ms * SIM_NPU_MACS_PER_MS);
	if (o->fault && sim_soc_set_fault(soc, o->fault)) {
		sim_err("--fault '%s': not a fault specification (see sim/sim.h)",
			o->fault);
		ret = RKBARE_EXIT_USAGE;
		goto out;
	}

	err = npu_init(&dev, &rk3588_npu_board);
	if (!err)
		err = npu_power_on(&dev, mask);
	if (err) {
		if (cores == 1u)
			sim_err("NPU core %u power-up failed: %s%s%s", o->chains[0].core,
				npu_strerror(err), *sim_soc_last_error(soc) ? ": " : "",
				sim_soc_last_error(soc));
		else
			print_failure(soc, "NPU power-up failed on", mask, err);
		goto out;
	}

	for (i = 0; i < o->load_count; i++) {
		const struct sim_load *l = &o->loads[i];

		inputs[n_in++] = (struct npu_buf){ hal_phys_to_virt(l->addr), l->len };
	}
	for (i = 0; i < o->save_count; i++) {
		const struct sim_save *sv = &o->saves[i];

		outputs[i] = (struct npu_buf){ hal_phys_to_virt(sv->addr), sv->len };
	}
	submit.inputs = inputs;
	submit.input_count = n_in;
	submit.outputs = outputs;
	submit.output_count = o->save_count;

	err = npu_submit(&dev, &submit);
	if (err) {
		if (cores == 1u)
			sim_err("job failed on core %u: %s%s%s", o->chains[0].core,
				npu_strerror(err), *sim_soc_last_error(soc) ? ": " : "",
				sim_soc_last_error(soc));
		else
			print_failure(soc, "job failed on", mask, err);
		goto out;
	}
	if (cores == 1u) {
		printf("completed: %u task(s) on core %u, %u kick(s), task counter %u\n", total,
		       o->chains[0].core, submit.core[o->chains[0].core].kicks,
		       submit.task_counter);
	} else {
		printf("completed: %u task(s) on cores 0x%x, task counter %u\n", total, mask,
		       submit.task_counter);
		for (i = 0; i < o->chain_count; i++)
			printf("  core %u: %u task(s) of %s, %u kick(s)\n", o->chains[i].core,
			       o->chains[i].task_count, o->chains[i].path,
			       submit.core[o->chains[i].core].kicks);
	}
	printf("interrupt status 0x%08x, fuzzed 0x%08x (expected 0x%08x)\n", last->int_status,
	       rknpu_fuzz_status(last->int_status), last->int_mask);

	for (i = 0; i < o->save_count; i++) {
		const struct sim_save *s = &o->saves[i];

		if (!write_file(s->path, hal_phys_to_virt(s->addr), s->len))
			goto out;
		printf("saved 0x%08x+0x%x to %s\n", s->addr, s->len, s->path);
	}
	ret = RKBARE_EXIT_OK;
out:
	sim_host_detach(soc);
	free(tasks);
	return ret;
}

/* Read, parse and split one chain's stream. 0, or -1 after a message. */
static int load_chain(struct sim_chain *ch)
{
	size_t text_len;
	unsigned int bad_line = 0;
	int err;

	ch->text = (char *)read_file(ch->path, SIM_MAX_TEXT, &text_len);
	if (!ch->text)
		return -1;
	if (memchr(ch->text, '\0', text_len)) {
		sim_err("%s is not a text file", ch->path);
		return -1;
	}
	ch->entries = malloc(SIM_MAX_ENTRIES * sizeof(*ch->entries));
	if (!ch->entries) {
		sim_err("out of memory");
		return -1;
	}
	err = rc_parse_text(ch->text, ch->entries, SIM_MAX_ENTRIES, &ch->count, &bad_line);
	if (err == -ENOSPC) {
		sim_err("%s: more than %u entries", ch->path, SIM_MAX_ENTRIES);
		return -1;
	}
	if (err) {
		sim_err("%s:%u: not a regcmd entry (16 hex digits, optional 0x)", ch->path,
			bad_line);
		return -1;
	}
	if (ch->count < NPU_RC_TAIL_QWORDS) {
		sim_err("%s: %zu entries, not even one task tail", ch->path, ch->count);
		return -1;
	}
	/* The PC fetches pairs of qwords: an odd stream gets a zero pad. */
	ch->stream_bytes = (ch->count + (ch->count & 1u)) * sizeof(uint64_t);
	ch->tasks = calloc(ch->count / NPU_RC_TAIL_QWORDS, sizeof(*ch->tasks));
	if (!ch->tasks) {
		sim_err("out of memory");
		return -1;
	}
	ch->task_count = split_tasks(ch->path, ch->entries, ch->count, ch->addr, ch->tasks);
	return ch->task_count ? 0 : -1;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o;
	unsigned int i;
	int ret = RKBARE_EXIT_USAGE;
	int err;

	err = parse_opts(argc, argv, &o);
	if (err)
		return err > 0 ? RKBARE_EXIT_OK : RKBARE_EXIT_USAGE;

	for (i = 0; i < o.chain_count; i++)
		if (load_chain(&o.chains[i]))
			goto out;
	for (i = 0; i < o.load_count; i++) {
		o.loads[i].data = read_file(o.loads[i].path, SIM_MAX_FILE, &o.loads[i].len);
		if (o.loads[i].data && !o.loads[i].len) {
			sim_err("--load %s: the file is empty", o.loads[i].path);
			free(o.loads[i].data);
			o.loads[i].data = NULL;
		}
		if (!o.loads[i].data)
			goto out;
	}
	if (o.verify && verify(&o))
		goto out;
	if (place_inputs(&o))
		goto out;

	for (i = 0; i < o.chain_count; i++) {
		const struct sim_chain *ch = &o.chains[i];

		printf("stream: %zu entries, %u task(s) at 0x%08x, last task enable 0x%02x%s%s\n",
		       ch->count, ch->task_count, ch->addr,
		       ch->tasks[ch->task_count - 1u].enable_mask,
		       o.chain_count > 1 ? ", " : "", o.chain_count > 1 ? ch->path : "");
	}
	ret = run(&o);
out:
	for (i = 0; i < o.load_count; i++)
		free(o.loads[i].data);
	for (i = 0; i < o.chain_count; i++) {
		free(o.chains[i].tasks);
		free(o.chains[i].entries);
		free(o.chains[i].text);
	}
	return ret;
}
