// SPDX-License-Identifier: MIT
/*
 * rkbare sim: run a regcmd stream on the NPU model through the driver,
 * exactly as on hardware: power-up, the BSP PC kick, polled completion.
 *
 * The stream (text form, compiler/disasm.h) is placed at --regcmd-addr; its
 * tasks are found by following each tail's PC_BASE_ADDRESS /
 * PC_REGISTER_AMOUNTS chain (HARDWARE.md §3.3, §3.5); each becomes one
 * task descriptor of one submit.
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

struct sim_opts {
	const char *regcmd_path;
	uint32_t regcmd_addr;
	unsigned int core;
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
		"                  [--verify]\n"
		"  Runs a regcmd stream (text form: one 64-bit entry per line) on the NPU model\n"
		"  through the driver: power-up, PC kick, polled completion.\n"
		"  --regcmd FILE         the stream; its tasks are found by following the\n"
		"                        PC_BASE_ADDRESS chain of each task's tail\n"
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

static bool parse_regcmd_addr(struct sim_opts *o, const char *val)
{
	if (!parse_addr("--regcmd-addr", val, &o->regcmd_addr))
		return false;
	if (!o->regcmd_addr || o->regcmd_addr % SIM_REGCMD_ALIGN) {
		sim_err("--regcmd-addr 0x%x: must be non-zero and %u-byte aligned",
			o->regcmd_addr, SIM_REGCMD_ALIGN);
		return false;
	}
	return true;
}

/* 0: options in *o; 1: help printed; -1: bad option (message printed). */
static int parse_opts(int argc, char **argv, struct sim_opts *o)
{
	uint64_t v;
	bool ok;
	int i;

	*o = (struct sim_opts){ .regcmd_addr = SIM_DEFAULT_REGCMD_ADDR,
				.timeout_ms = NPU_DEFAULT_TIMEOUT_MS };
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
			o->regcmd_path = val;
			ok = true;
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
			ok = parse_num(val, NPU_CORE_COUNT - 1u, &v);
			if (ok)
				o->core = (unsigned int)v;
			else
				sim_err("--core '%s': expected 0..%u", val, NPU_CORE_COUNT - 1u);
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
	if (!o->regcmd_path) {
		sim_err("--regcmd FILE is required");
		return -1;
	}
	return 0;
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

/* Check the memory layout, then copy stream and files into model memory. */
static int place_inputs(const struct sim_opts *o, const uint64_t *entries, size_t count,
			size_t stream_bytes)
{
	uint8_t *dst;
	unsigned int i, k;

	if (o->regcmd_addr + (uint64_t)stream_bytes > PHYS_LIMIT) {
		sim_err("the stream (%zu bytes) at 0x%08x crosses 4 GiB",
			stream_bytes, o->regcmd_addr);
		return -1;
	}
	for (i = 0; i < o->load_count; i++) {
		const struct sim_load *l = &o->loads[i];

		if (l->addr + (uint64_t)l->len > PHYS_LIMIT) {
			sim_err("--load %s (%zu bytes) at 0x%08x crosses 4 GiB",
				l->path, l->len, l->addr);
			return -1;
		}
		if (ranges_overlap(l->addr, l->len, o->regcmd_addr, stream_bytes)) {
			sim_err("--load %s at 0x%08x overlaps the stream at 0x%08x",
				l->path, l->addr, o->regcmd_addr);
			return -1;
		}
		for (k = 0; k < i; k++) {
			if (ranges_overlap(l->addr, l->len, o->loads[k].addr, o->loads[k].len)) {
				sim_err("--load %s overlaps --load %s",
					l->path, o->loads[k].path);
				return -1;
			}
		}
	}

	dst = hal_phys_to_virt(o->regcmd_addr);
	memset(dst, 0, stream_bytes);
	for (size_t j = 0; j < count; j++)
		put_le64(dst + j * sizeof(uint64_t), entries[j]);
	for (i = 0; i < o->load_count; i++)
		memcpy(hal_phys_to_virt(o->loads[i].addr), o->loads[i].data, o->loads[i].len);
	return 0;
}

/* --verify: the job may touch the stream and the --load / --save ranges only. */
static int verify(const struct sim_opts *o, const struct npu_task *tasks, uint32_t task_count,
		  const uint64_t *entries, size_t count, size_t stream_bytes)
{
	struct dv_range owned[2 * SIM_MAX_BUFS + 1];
	size_t n = 0;
	char why[256];

	owned[n++] = (struct dv_range){ o->regcmd_addr, stream_bytes, "stream" };
	for (unsigned int i = 0; i < o->load_count; i++)
		owned[n++] = (struct dv_range){ o->loads[i].addr, o->loads[i].len, "--load" };
	for (unsigned int i = 0; i < o->save_count; i++)
		owned[n++] = (struct dv_range){ o->saves[i].addr, o->saves[i].len, "--save" };
	if (dv_check_job(tasks, task_count, entries, o->regcmd_addr, count, owned, n, why,
			 sizeof(why))) {
		sim_err("--verify: %s", why);
		return -1;
	}
	printf("verify: %u task(s), every address inside the stream and the --load/--save "
	       "ranges\n", task_count);
	return 0;
}

static int run(const struct sim_opts *o, struct npu_task *tasks, uint32_t task_count,
	       size_t stream_bytes)
{
	struct npu_buf inputs[SIM_MAX_BUFS + 1], outputs[SIM_MAX_BUFS];
	const struct sim_config cfg = { .powered_at_reset = false };
	struct npu_submit submit;
	struct npu_task *last = &tasks[task_count - 1u];
	struct sim_soc *soc;
	struct npu_dev dev;
	unsigned int i;
	int ret = RKBARE_EXIT_FAIL;
	int err;

	soc = sim_host_attach(&cfg);
	if (!soc) {
		sim_err("cannot create the NPU model");
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
		err = npu_power_on(&dev, 1u << o->core);
	if (err) {
		sim_err("NPU core %u power-up failed: %s%s%s", o->core,
			npu_strerror(err), *sim_soc_last_error(soc) ? ": " : "",
			sim_soc_last_error(soc));
		goto out;
	}

	inputs[0] = (struct npu_buf){ hal_phys_to_virt(o->regcmd_addr), stream_bytes };
	for (i = 0; i < o->load_count; i++) {
		const struct sim_load *l = &o->loads[i];

		inputs[i + 1] = (struct npu_buf){ hal_phys_to_virt(l->addr), l->len };
	}
	for (i = 0; i < o->save_count; i++) {
		const struct sim_save *sv = &o->saves[i];

		outputs[i] = (struct npu_buf){ hal_phys_to_virt(sv->addr), sv->len };
	}

	submit = (struct npu_submit){
		.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG,
		.timeout_ms = o->timeout_ms,
		.task_number = task_count,
		.core_mask = 1u << o->core,
		.tasks = tasks,
		.task_count = task_count,
		.inputs = inputs,
		.input_count = o->load_count + 1u,
		.outputs = outputs,
		.output_count = o->save_count,
	};
	/* One core in the mask: core c runs subcore_task[c] (HARDWARE.md §2.5). */
	submit.subcore_task[o->core] = (struct npu_subcore_task){ 0, task_count };

	err = npu_submit(&dev, &submit);
	if (err) {
		sim_err("job failed on core %u: %s%s%s", o->core,
			npu_strerror(err), *sim_soc_last_error(soc) ? ": " : "",
			sim_soc_last_error(soc));
		goto out;
	}
	printf("completed: %u task(s) on core %u, %u kick(s), task counter %u\n", task_count,
	       o->core, submit.core[o->core].kicks, submit.task_counter);
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
	return ret;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o;
	struct npu_task *tasks = NULL;
	uint64_t *entries = NULL;
	char *text = NULL;
	size_t count = 0, text_len, stream_bytes;
	unsigned int bad_line = 0, i;
	uint32_t task_count;
	int ret = RKBARE_EXIT_USAGE;
	int err;

	err = parse_opts(argc, argv, &o);
	if (err)
		return err > 0 ? RKBARE_EXIT_OK : RKBARE_EXIT_USAGE;

	text = (char *)read_file(o.regcmd_path, SIM_MAX_TEXT, &text_len);
	if (!text)
		goto out;
	if (memchr(text, '\0', text_len)) {
		sim_err("%s is not a text file", o.regcmd_path);
		goto out;
	}
	entries = malloc(SIM_MAX_ENTRIES * sizeof(*entries));
	if (!entries) {
		sim_err("out of memory");
		goto out;
	}
	err = rc_parse_text(text, entries, SIM_MAX_ENTRIES, &count, &bad_line);
	if (err == -ENOSPC) {
		sim_err("%s: more than %u entries", o.regcmd_path,
			SIM_MAX_ENTRIES);
		goto out;
	}
	if (err) {
		sim_err("%s:%u: not a regcmd entry (16 hex digits, optional 0x)",
			o.regcmd_path, bad_line);
		goto out;
	}
	if (count < NPU_RC_TAIL_QWORDS) {
		sim_err("%s: %zu entries, not even one task tail",
			o.regcmd_path, count);
		goto out;
	}
	/* The PC fetches pairs of qwords: an odd stream gets a zero pad. */
	stream_bytes = (count + (count & 1u)) * sizeof(uint64_t);

	tasks = calloc(count / NPU_RC_TAIL_QWORDS, sizeof(*tasks));
	if (!tasks) {
		sim_err("out of memory");
		goto out;
	}
	task_count = split_tasks(o.regcmd_path, entries, count, o.regcmd_addr, tasks);
	if (!task_count)
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
	if (o.verify && verify(&o, tasks, task_count, entries, count, stream_bytes))
		goto out;
	if (place_inputs(&o, entries, count, stream_bytes))
		goto out;

	printf("stream: %zu entries, %u task(s) at 0x%08x, last task enable 0x%02x\n", count,
	       task_count, o.regcmd_addr, tasks[task_count - 1u].enable_mask);
	ret = run(&o, tasks, task_count, stream_bytes);
out:
	for (i = 0; i < o.load_count; i++)
		free(o.loads[i].data);
	free(tasks);
	free(entries);
	free(text);
	return ret;
}
