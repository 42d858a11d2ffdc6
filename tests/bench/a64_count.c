/* SPDX-License-Identifier: MIT */
/*
 * make bench's estimate of the board's CPU work (tests/bench/a64_count.sh):
 * a freestanding aarch64 Linux program, compiled with the image's flags,
 * that runs one kernel once and exits; qemu-aarch64 counts the
 * instructions it executes. Two sizes, and the difference over the
 * difference of bytes (or MACs) is the kernel's cost without the start
 * and exit.
 *
 *   -DKERNEL=1..4   NCHW → NC1HWC2, NHWC → NC1HWC2, NC1HWC2 → NCHW,
 *                   uint8 → int8 on PIXELS pixels of 64 channels, the
 *                   buffers aligned or -DOFFSET=n bytes off
 *   -DKERNEL=5      the NPU model's portable int8 convolution
 *                   (exec_conv.c's conv_direct_int, included for its static
 *                   functions): 3 × 3 × 32 windows, 8 × 8 positions, KERNELS
 */
#if KERNEL == 5
#include "sim/exec_conv.c"

#define CH	32u
#define OUT	8u
#define K3	3u

static int16_t in[(OUT + K3 - 1u) * (OUT + K3 - 1u) * CH];
static int16_t wt[KERNELS * K3 * K3 * CH];
static int64_t acc_i[KERNELS * OUT * OUT];

static void run(void)
{
	struct conv cv = { .ch = CH, .kw = K3, .kh = K3, .sx = 1, .sy = 1,
			   .kernels = KERNELS, .oc = KERNELS, .ow = OUT, .oh = OUT,
			   .wp = OUT + K3 - 1u, .hp = OUT + K3 - 1u };
	struct sim_cube acc = { .c = KERNELS, .h = OUT, .w = OUT, .i = acc_i };

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		in[i] = (int16_t)(i % 251u);
	for (size_t i = 0; i < sizeof(wt) / sizeof(wt[0]); i++)
		wt[i] = (int16_t)((int)(i % 255u) - 127);
	conv_direct_int(&cv, in, wt, &acc);
}
#else
#include <stddef.h>
#include <stdint.h>

#include "compiler/layout.h"

#define CH	64u

/* the buffers on 16-byte boundaries, or OFFSET bytes past them */
#ifndef OFFSET
#define OFFSET	0
#endif
static uint8_t src_mem[PIXELS * CH + OFFSET] __attribute__((aligned(16)));
static uint8_t dst_mem[PIXELS * CH + OFFSET] __attribute__((aligned(16)));

static void run(void)
{
	uint8_t *src = src_mem + OFFSET, *dst = dst_mem + OFFSET;

	switch (KERNEL) {
	case 1:
		layout_nchw_to_nc1hwc2(NPU_PREC_INT8, src, dst, 1, PIXELS, CH, CH);
		break;
	case 2:
		layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, src, dst, 1, PIXELS, CH, CH);
		break;
	case 3:
		layout_nc1hwc2_to_nchw(NPU_PREC_INT8, src, dst, 1, PIXELS, CH);
		break;
	default:
		layout_u8_to_s8(src, (int8_t *)dst, PIXELS * CH);
		break;
	}
}
#endif

/* Linux's exit_group system call number on aarch64. */
#define SYS_EXIT_GROUP	94

void _start(void);

static void exit_group(void)
{
	/* set just before the call: a call between would clobber them */
	register long nr __asm__("x8") = SYS_EXIT_GROUP, status __asm__("x0") = 0;

	__asm__ volatile("svc #0" : : "r"(nr), "r"(status) : "memory");
	for (;;)
		;
}

void _start(void)
{
	run();
	exit_group();
}
