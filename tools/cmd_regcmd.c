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

#include "runtime/disasm.h"
#include "runtime/lower_conv.h"
#include "runtime/lower_eltwise.h"
#include "runtime/lower_matmul.h"
#include "runtime/lower_pool.h"
#include "runtime/regcmd.h"
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

static int parse_u32(const char *opt, const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *end || x > UINT32_MAX || s[0] == '-') {
		fprintf(stderr, "rkbare regcmd: %s: '%s' is not a 32-bit unsigned number\n", opt, s);
		return -EINVAL;
	}
	*v = (uint32_t)x;
	return 0;
}

static int parse_i32(const char *opt, const char *s, int32_t *v)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(s, &end, 0);
	if (errno || end == s || *end || x < INT32_MIN || x > INT32_MAX) {
		fprintf(stderr, "rkbare regcmd: %s: '%s' is not an integer\n", opt, s);
		return -EINVAL;
	}
	*v = (int32_t)x;
	return 0;
}

static int parse_float(const char *opt, const char *s, float *v)
{
	char *end;

	errno = 0;
	*v = strtof(s, &end);
	if (errno || end == s || *end) {
		fprintf(stderr, "rkbare regcmd: %s: '%s' is not a number\n", opt, s);
		return -EINVAL;
	}
	return 0;
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

static int parse_act(const char *val, enum lower_act *act)
{
	if (!strcmp(val, "none"))
		*act = LOWER_ACT_NONE;
	else if (!strcmp(val, "relu"))
		*act = LOWER_ACT_RELU;
	else if (!strcmp(val, "relu6"))
		*act = LOWER_ACT_RELU6;
	else {
		fprintf(stderr, "rkbare regcmd: --act: '%s' is not none, relu or relu6\n", val);
		return -EINVAL;
	}
	return 0;
}

static int cmd_matmul(int argc, char **argv)
{
	struct lower_matmul_op op = {
		.a_addr = REGCMD_DEFAULT_A, .b_addr = REGCMD_DEFAULT_B, .c_addr = REGCMD_DEFAULT_C,
	};
	struct lower_matmul_shape shape;
	uint32_t base = REGCMD_DEFAULT_BASE;
	int have_type = 0;
	size_t tasks;

	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		int ret = 0;

		if (!val) {
			fprintf(stderr, "rkbare regcmd: %s needs a value\n", opt);
			return RKBARE_EXIT_USAGE;
		}
		if (!strcmp(opt, "--type")) {
			ret = lower_matmul_type_parse(val, &op.type);
			if (ret)
				fprintf(stderr, "rkbare regcmd: --type: '%s' is not fp16:fp32, "
					"fp16:fp16 or int8:int32\n", val);
			have_type = 1;
		} else if (!strcmp(opt, "--m")) {
			ret = parse_u32(opt, val, &op.m);
		} else if (!strcmp(opt, "--k")) {
			ret = parse_u32(opt, val, &op.k);
		} else if (!strcmp(opt, "--n")) {
			ret = parse_u32(opt, val, &op.n);
		} else if (!strcmp(opt, "--a-addr")) {
			ret = parse_u32(opt, val, &op.a_addr);
		} else if (!strcmp(opt, "--b-addr")) {
			ret = parse_u32(opt, val, &op.b_addr);
		} else if (!strcmp(opt, "--c-addr")) {
			ret = parse_u32(opt, val, &op.c_addr);
		} else if (!strcmp(opt, "--regcmd-addr")) {
			ret = parse_u32(opt, val, &base);
		} else {
			fprintf(stderr, "rkbare regcmd: unknown option '%s'\n", opt);
			regcmd_usage(stderr);
			return RKBARE_EXIT_USAGE;
		}
		if (ret)
			return RKBARE_EXIT_USAGE;
		i++;
	}
	if (!have_type || !op.m || !op.k || !op.n) {
		fprintf(stderr, "rkbare regcmd: matmul needs --type, --m, --k and --n\n");
		return RKBARE_EXIT_USAGE;
	}
	if (lower_matmul_check(&op, &shape) || lower_matmul_task_count(&op, &tasks))
		return RKBARE_EXIT_USAGE;
	return build_and_print(tasks, base, lower_mm_cb, &op);
}

static int parse_kernel(const char *s, unsigned int *kh, unsigned int *kw)
{
	char *end;
	unsigned long h = strtoul(s, &end, 10), w;

	if (end == s)
		return -EINVAL;
	if (*end == 'x') {
		const char *ws = end + 1;

		w = strtoul(ws, &end, 10);
		if (end == ws)
			return -EINVAL;
	} else {
		w = h;
	}
	if (*end || !h || !w || h > 31 || w > 31)
		return -EINVAL;
	*kh = (unsigned int)h;
	*kw = (unsigned int)w;
	return 0;
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
	uint32_t base = REGCMD_DEFAULT_BASE, u;
	size_t tasks;

	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : "";
		int ret = 0, flag = 1;

		if (!strcmp(opt, "--same")) {
			op.same_padding = true;
		} else if (!strcmp(opt, "--depthwise")) {
			op.depthwise = true;
		} else if (!strcmp(opt, "--unsigned")) {
			op.is_unsigned = true;
		} else {
			flag = 0;
			if (i + 1 >= argc) {
				fprintf(stderr, "rkbare regcmd: %s needs a value\n", opt);
				return RKBARE_EXIT_USAGE;
			}
		}
		if (flag)
			continue;
		if (!strcmp(opt, "--h")) {
			ret = parse_u32(opt, val, &op.in_h);
		} else if (!strcmp(opt, "--w")) {
			ret = parse_u32(opt, val, &op.in_w);
		} else if (!strcmp(opt, "--c")) {
			ret = parse_u32(opt, val, &op.in_c);
		} else if (!strcmp(opt, "--oc")) {
			ret = parse_u32(opt, val, &op.out_c);
		} else if (!strcmp(opt, "--k")) {
			ret = parse_kernel(val, &op.kh, &op.kw);
			if (ret)
				fprintf(stderr, "rkbare regcmd: --k: '%s' is not K or KHxKW (1..31)\n", val);
		} else if (!strcmp(opt, "--stride")) {
			ret = parse_u32(opt, val, &u);
			op.stride_y = op.stride_x = u;
		} else if (!strcmp(opt, "--in-scale")) {
			ret = parse_float(opt, val, &op.in_scale);
		} else if (!strcmp(opt, "--w-scale")) {
			ret = parse_float(opt, val, &w_scale);
		} else if (!strcmp(opt, "--out-scale")) {
			ret = parse_float(opt, val, &op.out_scale);
		} else if (!strcmp(opt, "--in-zp")) {
			ret = parse_i32(opt, val, &op.in_zp);
		} else if (!strcmp(opt, "--w-zp")) {
			ret = parse_i32(opt, val, &op.w_zp);
		} else if (!strcmp(opt, "--out-zp")) {
			ret = parse_i32(opt, val, &op.out_zp);
		} else if (!strcmp(opt, "--act")) {
			ret = parse_act(val, &op.act);
		} else if (!strcmp(opt, "--in-addr")) {
			ret = parse_u32(opt, val, &op.in_addr);
		} else if (!strcmp(opt, "--w-addr")) {
			ret = parse_u32(opt, val, &op.weight_addr);
		} else if (!strcmp(opt, "--bias-addr")) {
			ret = parse_u32(opt, val, &op.bias_addr);
		} else if (!strcmp(opt, "--out-addr")) {
			ret = parse_u32(opt, val, &op.out_addr);
		} else if (!strcmp(opt, "--scratch-addr")) {
			ret = parse_u32(opt, val, &op.scratch_addr);
		} else if (!strcmp(opt, "--regcmd-addr")) {
			ret = parse_u32(opt, val, &base);
		} else {
			fprintf(stderr, "rkbare regcmd: unknown option '%s'\n", opt);
			regcmd_usage(stderr);
			return RKBARE_EXIT_USAGE;
		}
		if (ret)
			return RKBARE_EXIT_USAGE;
		i++;
	}
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
	uint32_t base = REGCMD_DEFAULT_BASE, u;

	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		int ret = 0;

		if (!strcmp(opt, "--same")) {
			op.same_padding = true;
			continue;
		}
		if (!strcmp(opt, "--fp16")) {
			op.prec = NPU_PREC_FP16;
			continue;
		}
		if (!val) {
			fprintf(stderr, "rkbare regcmd: %s needs a value\n", opt);
			return RKBARE_EXIT_USAGE;
		}
		if (!strcmp(opt, "--h")) {
			ret = parse_u32(opt, val, &op.in_h);
		} else if (!strcmp(opt, "--w")) {
			ret = parse_u32(opt, val, &op.in_w);
		} else if (!strcmp(opt, "--c")) {
			ret = parse_u32(opt, val, &op.c);
		} else if (!strcmp(opt, "--k")) {
			ret = parse_u32(opt, val, &u);
			op.kh = op.kw = u;
		} else if (!strcmp(opt, "--stride")) {
			ret = parse_u32(opt, val, &u);
			op.stride_y = op.stride_x = u;
		} else if (!strcmp(opt, "--method")) {
			if (!strcmp(val, "max"))
				op.method = LOWER_POOL_MAX;
			else if (!strcmp(val, "min"))
				op.method = LOWER_POOL_MIN;
			else if (!strcmp(val, "avg"))
				op.method = LOWER_POOL_AVG;
			else {
				fprintf(stderr, "rkbare regcmd: --method: '%s' is not max, min or avg\n",
					val);
				ret = -EINVAL;
			}
		} else if (!strcmp(opt, "--in-addr")) {
			ret = parse_u32(opt, val, &op.in_addr);
		} else if (!strcmp(opt, "--out-addr")) {
			ret = parse_u32(opt, val, &op.out_addr);
		} else if (!strcmp(opt, "--regcmd-addr")) {
			ret = parse_u32(opt, val, &base);
		} else {
			fprintf(stderr, "rkbare regcmd: unknown option '%s'\n", opt);
			regcmd_usage(stderr);
			return RKBARE_EXIT_USAGE;
		}
		if (ret)
			return RKBARE_EXIT_USAGE;
		i++;
	}
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

	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		int ret = 0;

		if (!strcmp(opt, "--unsigned")) {
			op.is_unsigned = true;
			continue;
		}
		if (!val) {
			fprintf(stderr, "rkbare regcmd: %s needs a value\n", opt);
			return RKBARE_EXIT_USAGE;
		}
		if (!strcmp(opt, "--h"))
			ret = parse_u32(opt, val, &op.h);
		else if (!strcmp(opt, "--w"))
			ret = parse_u32(opt, val, &op.w);
		else if (!strcmp(opt, "--c"))
			ret = parse_u32(opt, val, &op.c);
		else if (!strcmp(opt, "--a-scale"))
			ret = parse_float(opt, val, &op.a_scale);
		else if (!strcmp(opt, "--b-scale"))
			ret = parse_float(opt, val, &op.b_scale);
		else if (!strcmp(opt, "--out-scale"))
			ret = parse_float(opt, val, &op.out_scale);
		else if (!strcmp(opt, "--a-zp"))
			ret = parse_i32(opt, val, &op.a_zp);
		else if (!strcmp(opt, "--b-zp"))
			ret = parse_i32(opt, val, &op.b_zp);
		else if (!strcmp(opt, "--out-zp"))
			ret = parse_i32(opt, val, &op.out_zp);
		else if (!strcmp(opt, "--act"))
			ret = parse_act(val, &op.act);
		else if (!strcmp(opt, "--a-addr"))
			ret = parse_u32(opt, val, &op.a_addr);
		else if (!strcmp(opt, "--b-addr"))
			ret = parse_u32(opt, val, &op.b_addr);
		else if (!strcmp(opt, "--out-addr"))
			ret = parse_u32(opt, val, &op.out_addr);
		else if (!strcmp(opt, "--regcmd-addr"))
			ret = parse_u32(opt, val, &base);
		else {
			fprintf(stderr, "rkbare regcmd: unknown option '%s'\n", opt);
			regcmd_usage(stderr);
			return RKBARE_EXIT_USAGE;
		}
		if (ret)
			return RKBARE_EXIT_USAGE;
		i++;
	}
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
