/* SPDX-License-Identifier: MIT */
/*
 * void selftest_fp_mmio(uintptr_t reg, const void *in, void *out, uint32_t *value)
 *
 * Loads q0-q31 from in[512], reads the 32-bit register at `reg` (a trapped
 * access on qemu-virt), stores q0-q31 to out[512] and the value to *value:
 * in and out differ only if the exception path lost FP/SIMD state.
 */
	.text
	.global selftest_fp_mmio
selftest_fp_mmio:
	/* q8-q15 are callee-saved (low halves): keep the caller's. */
	stp	d8, d9, [sp, #-64]!
	stp	d10, d11, [sp, #16]
	stp	d12, d13, [sp, #32]
	stp	d14, d15, [sp, #48]

	mov	x4, x1
	ld1	{v0.16b, v1.16b, v2.16b, v3.16b}, [x4], #64
	ld1	{v4.16b, v5.16b, v6.16b, v7.16b}, [x4], #64
	ld1	{v8.16b, v9.16b, v10.16b, v11.16b}, [x4], #64
	ld1	{v12.16b, v13.16b, v14.16b, v15.16b}, [x4], #64
	ld1	{v16.16b, v17.16b, v18.16b, v19.16b}, [x4], #64
	ld1	{v20.16b, v21.16b, v22.16b, v23.16b}, [x4], #64
	ld1	{v24.16b, v25.16b, v26.16b, v27.16b}, [x4], #64
	ld1	{v28.16b, v29.16b, v30.16b, v31.16b}, [x4], #64
	ldr	w9, [x0]
	mov	x5, x2
	st1	{v0.16b, v1.16b, v2.16b, v3.16b}, [x5], #64
	st1	{v4.16b, v5.16b, v6.16b, v7.16b}, [x5], #64
	st1	{v8.16b, v9.16b, v10.16b, v11.16b}, [x5], #64
	st1	{v12.16b, v13.16b, v14.16b, v15.16b}, [x5], #64
	st1	{v16.16b, v17.16b, v18.16b, v19.16b}, [x5], #64
	st1	{v20.16b, v21.16b, v22.16b, v23.16b}, [x5], #64
	st1	{v24.16b, v25.16b, v26.16b, v27.16b}, [x5], #64
	st1	{v28.16b, v29.16b, v30.16b, v31.16b}, [x5], #64
	str	w9, [x3]

	ldp	d10, d11, [sp, #16]
	ldp	d12, d13, [sp, #32]
	ldp	d14, d15, [sp, #48]
	ldp	d8, d9, [sp], #64
	ret
