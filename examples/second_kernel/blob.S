/* SPDX-License-Identifier: MIT */
/*
 * The image's default model container and its samples (models/models.mk),
 * linked in as bytes; the paths come from the build (second_kernel.mk).
 */
	.section .rodata.sk_blob, "a"

	.macro	blob name, file
	.balign	64
	.global	\name
\name:
	.incbin	"\file"
\name\()_end:
	.endm

	blob	sk_model, SK_MODEL
	blob	sk_samples, SK_SAMPLES
	blob	sk_labels, SK_LABELS

	.balign	8
	.global	sk_model_size, sk_samples_size, sk_labels_size
sk_model_size:
	.8byte	sk_model_end - sk_model
sk_samples_size:
	.8byte	sk_samples_end - sk_samples
sk_labels_size:
	.8byte	sk_labels_end - sk_labels
