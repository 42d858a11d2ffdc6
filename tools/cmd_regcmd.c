/* SPDX-License-Identifier: MIT */
/*
 * rkbare regcmd: lower one op and print its regcmd program, one entry per
 * line (16 hex digits, then '#' and the disassembly), readable back as a
 * regcmd text file (rkbare disasm, the model CLI).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/disasm.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_eltwise.h"
#include "compiler/lower_matmul.h"
#include "compiler/lower_pool.h"
#include "compiler/regcmd.h"
#include "tools/cli_parse.h"
#include "tools/commands.h"

#define REGCMD_DEFAULT_BASE	0x08000000u	/* where `rkbare sim` places a stream */
#define REGCMD_DEFAULT_A	0x10000000u
#define REGCMD_DEFAULT_B	0x20000000u
#define REGCMD_DEFAULT_C	0x30000000u
#define REGCMD_DEFAULT_BIAS	0x38000000u
#define REGCMD_DEFAULT_SCRATCH	0x3C000000u
#define REGCMD_LINE		512

static void regcmd_usage(FILE *out)
{
	fprintf(out,
		"usage: rkbare regcmd matmul --type fp16:fp32|fp16:fp16|int8:int32 --m M --k K --n N\n"
		"                     [--a-addr ADDR] [--b-addr ADDR] [--c-addr ADDR] [--regcmd-addr ADDR]\n"
		"       rkbare regcmd conv --h H --w W --c C --oc OC --k KH[xKW] [--stride S] [--same]\n"
		"                     [--depthwise] [--unsigned] [--in-scale F] [--in-zp Z] [--w-scale F]\n"
		"                     [--w-zp Z] [--out-scale F] [--out-zp Z] [--act none|relu|relu6]\n"
		"                     [--in-addr ADDR] [--w-addr ADDR] [--bias-addr ADDR] [--out-addr ADDR]\n"
		"                     [--scratch-addr ADDR] [--regcmd-addr ADDR]\n"
		"       rkbare regcmd pool --h H --w W --c C --k K [--stride S] [--same]\n"
		"                     [--method max|min|avg] [--fp16] [--in-addr ADDR] [--out-addr ADDR]\n"
		"       rkbare regcmd add --h H --w W --c C [--unsigned] [--a-scale F] [--a-zp Z]\n"
		"                     [--b-scale F] [--b-zp Z] [--out-scale F] [--out-zp Z]\n"
		"                     [--act none|relu|relu6] [--a-addr ADDR] [--b-addr ADDR]\n"
		"                     [--out-addr ADDR]\n"
		"  Prints the program: one entry per line, 16 hex digits, then '# ' and the\n"
		"  disassembly. Defaults: A/input 0x%08x, B/weights 0x%08x, C/output 0x%08x,\n"
		"  bias 0x%08x, partial-sum scratch 0x%08x (layers split by input channels),\n"
		"  program 0x%08x (chained tasks point inside it).\n"
		"  K must be a multiple of 32, N of 32 (int8) or 16 (fp16).\n",
		REGCMD_DEFAULT_A, REGCMD_DEFAULT_B, REGCMD_DEFAULT_C, REGCMD_DEFAULT_BIAS,
		REGCMD_DEFAULT_SCRATCH, REGCMD_DEFAULT_BASE);
}

/* ---- options: one table per subcommand, one parser per kind of value ---- */

/*
 * One option of a subcommand: its name, how its value is read and where it
 * goes. A NULL parse marks a flag, which takes no value and sets the bool
 * at dst.
 */
struct regcmd_opt {
	const char *name;
	int (*parse)(const struct regcmd_opt *o, const char *val);
	void *dst;
	void *dst2;	/* second destination: x of a y/x pair, matmul's "type given" */
};

#define OPT_COUNT(opts)	(sizeof(opts) / sizeof((opts)[0]))

static int opt_u32(const struct regcmd_opt *o, const char *s)
{
	uint64_t x;

	if (cli_parse_u64(s, UINT32_MAX, &x)) {
		fprintf(stderr, "rkbare regcmd: %s: '%s' is not a 32-bit unsigned number "
			"(decimal or 0x-hex)\n", o->name, s);
		return -EINVAL;
	}
	*(uint32_t *)o->dst = (uint32_t)x;
	return 0;
}

/* Where the program is placed: non-zero and 16-byte aligned (the PC's
 * BASE_ADDRESS, HARDWARE.md §3.6), the rule `rkbare sim` applies too. */
static int opt_regcmd_addr(const struct regcmd_opt *o, const char *s)
{
	uint32_t *addr = o->dst;

	if (opt_u32(o, s))
		return -EINVAL;
	if (!*addr || *addr % NPU_ATOM_BYTES) {
		fprintf(stderr, "rkbare regcmd: %s 0x%x: must be non-zero and %u-byte aligned\n",
			o->name, *addr, NPU_ATOM_BYTES);
		return -EINVAL;
	}
	return 0;
}

/* One number for both of a y/x pair (stride, pooling kernel). */
static int opt_u32_pair(const struct regcmd_opt *o, const char *s)
{
	int ret = opt_u32(o, s);

	if (!ret)
		*(uint32_t *)o->dst2 = *(uint32_t *)o->dst;
	return ret;
}

static int opt_i32(const struct regcmd_opt *o, const char *s)
{
	int64_t x;

	if (cli_parse_i64(s, INT32_MIN, INT32_MAX, &x)) {
		fprintf(stderr, "rkbare regcmd: %s: '%s' is not a 32-bit integer (decimal or "
			"0x-hex)\n", o->name, s);
		return -EINVAL;
	}
	*(int32_t *)o->dst = (int32_t)x;
	return 0;
}

static int opt_float(const struct regcmd_opt *o, const char *s)
{
	int rc = cli_parse_float(s, o->dst);

	if (rc == -ERANGE)
		fprintf(stderr, "rkbare regcmd: %s: '%s' is outside the range of a float "
			"(overflow or underflow)\n", o->name, s);
	else if (rc)
		fprintf(stderr, "rkbare regcmd: %s: '%s' is not a number\n", o->name, s);
	return rc ? -EINVAL : 0;
}

static int opt_act(const struct regcmd_opt *o, const char *val)
{
	enum lower_act *act = o->dst;

	if (!strcmp(val, "none"))
		*act = LOWER_ACT_NONE;
	else if (!strcmp(val, "relu"))
		*act = LOWER_ACT_RELU;
	else if (!strcmp(val, "relu6"))
		*act = LOWER_ACT_RELU6;
	else {
		fprintf(stderr, "rkbare regcmd: %s: '%s' is not none, relu or relu6\n", o->name, val);
		return -EINVAL;
	}
	return 0;
}

static int opt_mm_type(const struct regcmd_opt *o, const char *val)
{
	int ret = lower_matmul_type_parse(val, o->dst);

	if (ret)
		fprintf(stderr, "rkbare regcmd: %s: '%s' is not fp16:fp32, fp16:fp16 or int8:int32\n",
			o->name, val);
	*(bool *)o->dst2 = true;
	return ret;
}

/* K or KHxKW, each 1..31: dst is kh, dst2 kw. */
static int opt_kernel(const struct regcmd_opt *o, const char *s)
{
	char hs[16];
	const char *x = strchr(s, 'x');
	uint64_t h, w;

	if (x && (size_t)(x - s) < sizeof(hs)) {
		memcpy(hs, s, (size_t)(x - s));
		hs[x - s] = '\0';
		if (cli_parse_u64(hs, 31, &h) || cli_parse_u64(x + 1, 31, &w))
			goto bad;
	} else if (x || cli_parse_u64(s, 31, &h)) {
		goto bad;
	} else {
		w = h;
	}
	if (!h || !w)
		goto bad;
	*(unsigned int *)o->dst = (unsigned int)h;
	*(unsigned int *)o->dst2 = (unsigned int)w;
	return 0;
bad:
	fprintf(stderr, "rkbare regcmd: %s: '%s' is not K or KHxKW (1..31)\n", o->name, s);
	return -EINVAL;
}

static int opt_pool_method(const struct regcmd_opt *o, const char *val)
{
	enum lower_pool_method *method = o->dst;

	if (!strcmp(val, "max"))
		*method = LOWER_POOL_MAX;
	else if (!strcmp(val, "min"))
		*method = LOWER_POOL_MIN;
	else if (!strcmp(val, "avg"))
		*method = LOWER_POOL_AVG;
	else {
		fprintf(stderr, "rkbare regcmd: %s: '%s' is not max, min or avg\n", o->name, val);
		return -EINVAL;
	}
	return 0;
}

/* Read argv[1..argc) against the table; RKBARE_EXIT_OK or _USAGE. */
static int parse_options(const struct regcmd_opt *opts, size_t count, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const struct regcmd_opt *o = NULL;

		for (size_t j = 0; j < count && !o; j++)
			if (!strcmp(argv[i], opts[j].name))
				o = &opts[j];
		if (o && !o->parse) {
			*(bool *)o->dst = true;
			continue;
		}
		/* Anything but a flag takes a value, even a name not in the table. */
		if (i + 1 >= argc) {
			fprintf(stderr, "rkbare regcmd: %s needs a value\n", argv[i]);
			return RKBARE_EXIT_USAGE;
		}
		if (!o) {
			fprintf(stderr, "rkbare regcmd: unknown option '%s'\n", argv[i]);
			regcmd_usage(stderr);
			return RKBARE_EXIT_USAGE;
		}
		if (o->parse(o, argv[++i]))
			return RKBARE_EXIT_USAGE;
	}
	return RKBARE_EXIT_OK;
}

static int print_program(struct rc_program *p, uint32_t base)
{
	int ret = rc_program_link(p, base);

	if (ret) {
		fprintf(stderr, "rkbare regcmd: cannot link the program (%d)\n", ret);
		return RKBARE_EXIT_FAIL;
	}
	printf("# %zu task(s), %zu entries, program at 0x%08x\n", p->task_count, p->len, base);
	for (size_t i = 0; i < p->len; i++) {
		char line[REGCMD_LINE];

		rc_disasm_entry(p->q[i], line, sizeof(line));
		printf("%016" PRIx64 "  # %s\n", p->q[i], line);
	}
	return RKBARE_EXIT_OK;
}

/* Build with a program sized for `tasks` tasks and print it. */
static int build_and_print(size_t tasks, uint32_t base,
			   int (*lower)(struct rc_program *, const void *), const void *op)
{
	size_t cap = rc_program_size(tasks, CONV_TASK_MAX_ENTRIES);
	uint64_t *q = calloc(cap, sizeof(*q));
	struct rc_task *t = calloc(tasks, sizeof(*t));
	struct rc_program p;
	int ret = RKBARE_EXIT_FAIL;

	if (!q || !t) {
		fprintf(stderr, "rkbare regcmd: out of memory\n");
		goto out;
	}
	rc_program_init(&p, q, cap, t, tasks);
	if (lower(&p, op)) {
		fprintf(stderr, "rkbare regcmd: lowering failed\n");
		ret = RKBARE_EXIT_USAGE;
		goto out;
	}
	ret = print_program(&p, base);
out:
	free(t);
	free(q);
	return ret;
}

static int lower_mm_cb(struct rc_program *p, const void *op)
{
	return lower_matmul(p, op);
}

static int lower_conv_cb(struct rc_program *p, const void *op)
{
	return lower_conv(p, op);
}

static int lower_pool_cb(struct rc_program *p, const void *op)
{
	return lower_pool(p, op);
}

static int lower_add_cb(struct rc_program *p, const void *op)
{
	return lower_add(p, op);
}

static int cmd_matmul(int argc, char **argv)
{
	struct lower_matmul_op op = {
		.a_addr = REGCMD_DEFAULT_A, .b_addr = REGCMD_DEFAULT_B, .c_addr = REGCMD_DEFAULT_C,
	};
	struct lower_matmul_shape shape;
	uint32_t base = REGCMD_DEFAULT_BASE;
	bool have_type = false;
	const struct regcmd_opt opts[] = {
		{ "--type", opt_mm_type, &op.type, &have_type },
		{ "--m", opt_u32, &op.m, NULL },
		{ "--k", opt_u32, &op.k, NULL },
		{ "--n", opt_u32, &op.n, NULL },
		{ "--a-addr", opt_u32, &op.a_addr, NULL },
		{ "--b-addr", opt_u32, &op.b_addr, NULL },
		{ "--c-addr", opt_u32, &op.c_addr, NULL },
		{ "--regcmd-addr", opt_regcmd_addr, &base, NULL },
	};
	size_t tasks;
	int ret = parse_options(opts, OPT_COUNT(opts), argc, argv);

	if (ret)
		return ret;
	if (!have_type || !op.m || !op.k || !op.n) {
		fprintf(stderr, "rkbare regcmd: matmul needs --type, --m, --k and --n\n");
		return RKBARE_EXIT_USAGE;
	}
	if (lower_matmul_check(&op, &shape) || lower_matmul_task_count(&op, &tasks))
		return RKBARE_EXIT_USAGE;
	return build_and_print(tasks, base, lower_mm_cb, &op);
}

static int cmd_conv(int argc, char **argv)
{
	float w_scale = 1.0f;
	struct lower_conv_op op = {
		.stride_y = 1, .stride_x = 1, .in_scale = 1.0f, .out_scale = 1.0f,
		.w_scale = &w_scale, .w_scale_count = 1,
		.in_addr = REGCMD_DEFAULT_A, .weight_addr = REGCMD_DEFAULT_B,
		.bias_addr = REGCMD_DEFAULT_BIAS, .out_addr = REGCMD_DEFAULT_C,
		.scratch_addr = REGCMD_DEFAULT_SCRATCH,
	};
	struct lower_conv_shape shape;
	uint32_t base = REGCMD_DEFAULT_BASE;
	const struct regcmd_opt opts[] = {
		{ "--same", NULL, &op.same_padding, NULL },
		{ "--depthwise", NULL, &op.depthwise, NULL },
		{ "--unsigned", NULL, &op.is_unsigned, NULL },
		{ "--h", opt_u32, &op.in_h, NULL },
		{ "--w", opt_u32, &op.in_w, NULL },
		{ "--c", opt_u32, &op.in_c, NULL },
		{ "--oc", opt_u32, &op.out_c, NULL },
		{ "--k", opt_kernel, &op.kh, &op.kw },
		{ "--stride", opt_u32_pair, &op.stride_y, &op.stride_x },
		{ "--in-scale", opt_float, &op.in_scale, NULL },
		{ "--w-scale", opt_float, &w_scale, NULL },
		{ "--out-scale", opt_float, &op.out_scale, NULL },
		{ "--in-zp", opt_i32, &op.in_zp, NULL },
		{ "--w-zp", opt_i32, &op.w_zp, NULL },
		{ "--out-zp", opt_i32, &op.out_zp, NULL },
		{ "--act", opt_act, &op.act, NULL },
		{ "--in-addr", opt_u32, &op.in_addr, NULL },
		{ "--w-addr", opt_u32, &op.weight_addr, NULL },
		{ "--bias-addr", opt_u32, &op.bias_addr, NULL },
		{ "--out-addr", opt_u32, &op.out_addr, NULL },
		{ "--scratch-addr", opt_u32, &op.scratch_addr, NULL },
		{ "--regcmd-addr", opt_regcmd_addr, &base, NULL },
	};
	size_t tasks;
	int ret = parse_options(opts, OPT_COUNT(opts), argc, argv);

	if (ret)
		return ret;
	if (op.depthwise && !op.out_c)
		op.out_c = op.in_c;
	if (!op.in_h || !op.in_w || !op.in_c || !op.out_c || !op.kh) {
		fprintf(stderr, "rkbare regcmd: conv needs --h, --w, --c, --oc and --k\n");
		return RKBARE_EXIT_USAGE;
	}
	if (lower_conv_check(&op, &shape) || lower_conv_task_count(&op, &tasks))
		return RKBARE_EXIT_USAGE;
	return build_and_print(tasks, base, lower_conv_cb, &op);
}

static int cmd_pool(int argc, char **argv)
{
	struct lower_pool_op op = {
		.prec = NPU_PREC_INT8, .method = LOWER_POOL_MAX, .stride_y = 1, .stride_x = 1,
		.in_addr = REGCMD_DEFAULT_A, .out_addr = REGCMD_DEFAULT_C,
	};
	struct lower_pool_shape shape;
	uint32_t base = REGCMD_DEFAULT_BASE;
	bool fp16 = false;
	const struct regcmd_opt opts[] = {
		{ "--same", NULL, &op.same_padding, NULL },
		{ "--fp16", NULL, &fp16, NULL },
		{ "--h", opt_u32, &op.in_h, NULL },
		{ "--w", opt_u32, &op.in_w, NULL },
		{ "--c", opt_u32, &op.c, NULL },
		{ "--k", opt_u32_pair, &op.kh, &op.kw },
		{ "--stride", opt_u32_pair, &op.stride_y, &op.stride_x },
		{ "--method", opt_pool_method, &op.method, NULL },
		{ "--in-addr", opt_u32, &op.in_addr, NULL },
		{ "--out-addr", opt_u32, &op.out_addr, NULL },
		{ "--regcmd-addr", opt_regcmd_addr, &base, NULL },
	};
	int ret = parse_options(opts, OPT_COUNT(opts), argc, argv);

	if (ret)
		return ret;
	if (fp16)
		op.prec = NPU_PREC_FP16;
	if (lower_pool_check(&op, &shape))
		return RKBARE_EXIT_USAGE;
	return build_and_print(1, base, lower_pool_cb, &op);
}

static int cmd_add(int argc, char **argv)
{
	struct lower_add_op op = {
		.a_scale = 1.0f, .b_scale = 1.0f, .out_scale = 1.0f,
		.a_addr = REGCMD_DEFAULT_A, .b_addr = REGCMD_DEFAULT_B, .out_addr = REGCMD_DEFAULT_C,
	};
	struct lower_add_params params;
	uint32_t base = REGCMD_DEFAULT_BASE;
	const struct regcmd_opt opts[] = {
		{ "--unsigned", NULL, &op.is_unsigned, NULL },
		{ "--h", opt_u32, &op.h, NULL },
		{ "--w", opt_u32, &op.w, NULL },
		{ "--c", opt_u32, &op.c, NULL },
		{ "--a-scale", opt_float, &op.a_scale, NULL },
		{ "--b-scale", opt_float, &op.b_scale, NULL },
		{ "--out-scale", opt_float, &op.out_scale, NULL },
		{ "--a-zp", opt_i32, &op.a_zp, NULL },
		{ "--b-zp", opt_i32, &op.b_zp, NULL },
		{ "--out-zp", opt_i32, &op.out_zp, NULL },
		{ "--act", opt_act, &op.act, NULL },
		{ "--a-addr", opt_u32, &op.a_addr, NULL },
		{ "--b-addr", opt_u32, &op.b_addr, NULL },
		{ "--out-addr", opt_u32, &op.out_addr, NULL },
		{ "--regcmd-addr", opt_regcmd_addr, &base, NULL },
	};
	int ret = parse_options(opts, OPT_COUNT(opts), argc, argv);

	if (ret)
		return ret;
	if (lower_add_check(&op, &params))
		return RKBARE_EXIT_USAGE;
	return build_and_print(1, base, lower_add_cb, &op);
}

int cmd_regcmd(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		regcmd_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? RKBARE_EXIT_USAGE : RKBARE_EXIT_OK;
	}
	if (!strcmp(argv[1], "matmul"))
		return cmd_matmul(argc - 1, argv + 1);
	if (!strcmp(argv[1], "conv"))
		return cmd_conv(argc - 1, argv + 1);
	if (!strcmp(argv[1], "pool"))
		return cmd_pool(argc - 1, argv + 1);
	if (!strcmp(argv[1], "add"))
		return cmd_add(argc - 1, argv + 1);
	fprintf(stderr, "rkbare regcmd: unknown op '%s' (matmul, conv, pool, add)\n", argv[1]);
	return RKBARE_EXIT_USAGE;
}
