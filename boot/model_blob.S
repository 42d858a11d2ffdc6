/* SPDX-License-Identifier: MIT */
/*
 * The model the image runs (`make run MODEL=...`), linked in as bytes,
 * and optionally the samples it runs on and their labels (.npy), and a
 * text recogniser's dictionary. The paths come from the build
 * (models/models.mk); a missing sample, label or dictionary file leaves an
 * empty range.
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

/* A CTC recogniser's character dictionary (MODEL_POST=ctc). */
	.balign 8
	.global rkb_embedded_dict
rkb_embedded_dict:
#ifdef RKB_DICT_FILE
	.incbin RKB_DICT_FILE
#endif
	.global rkb_embedded_dict_end
rkb_embedded_dict_end:

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
	.global rkb_embedded_dict_size
rkb_embedded_dict_size:
	.8byte rkb_embedded_dict_end - rkb_embedded_dict
