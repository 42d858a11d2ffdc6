/* SPDX-License-Identifier: MIT */
/*
 * The model the image runs (`make run MODEL=...`), linked in as bytes,
 * and optionally the samples it runs on and their labels (.npy). The
 * paths come from the build (models/models.mk); a missing sample or label
 * file leaves an empty range.
 */
	.section .rodata.rkb_embedded, "a"

	.balign 64
	.global rkb_embedded_model
rkb_embedded_model:
	.incbin RKB_MODEL_FILE
	.global rkb_embedded_model_end
rkb_embedded_model_end:

	.balign 64
	.global rkb_embedded_input
rkb_embedded_input:
#ifdef RKB_INPUT_FILE
	.incbin RKB_INPUT_FILE
#endif
	.global rkb_embedded_input_end
rkb_embedded_input_end:

	.balign 64
	.global rkb_embedded_labels
rkb_embedded_labels:
#ifdef RKB_LABELS_FILE
	.incbin RKB_LABELS_FILE
#endif
	.global rkb_embedded_labels_end
rkb_embedded_labels_end:

/* The sizes, so that C never subtracts pointers to different objects. */
	.balign 8
	.global rkb_embedded_model_size
rkb_embedded_model_size:
	.8byte rkb_embedded_model_end - rkb_embedded_model
	.global rkb_embedded_input_size
rkb_embedded_input_size:
	.8byte rkb_embedded_input_end - rkb_embedded_input
	.global rkb_embedded_labels_size
rkb_embedded_labels_size:
	.8byte rkb_embedded_labels_end - rkb_embedded_labels
