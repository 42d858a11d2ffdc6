#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Train the default embedded model: a small CNN on Fashion-MNIST.

Data: Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist).
Needs Debian's python3-numpy and python3-onnx only; runs once (about two
minutes on two cores with OpenBLAS) and writes fmnist_cnn.onnx beside
itself. The ONNX file is kept in the repository as the project's own
artifact, so builds never retrain. Fixed seed: a rerun gives the same file
on the same numpy build.

Graph (NCHW, opset 13), chosen so every op maps to the NPU:
  image [N,1,28,28] float in [0,1]
  Conv 1->8 3x3 pad 1, Relu, MaxPool 2x2      -> [N,8,14,14]
  Conv 8->16 3x3 pad 1, Relu, MaxPool 2x2     -> [N,16,7,7]
  Flatten, Gemm 784->64, Relu, Gemm 64->10    -> logits [N,10]
"""
import gzip
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DATA = "/usr/share/datasets/fashion-mnist"
HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261124
EPOCHS = 4
BATCH = 64
LR = 1e-3


def load_idx(name):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def im2col3(x):
    """[B,C,H,W] -> [B,H,W,C*9] for a 3x3 window, padding 1."""
    b, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.empty((b, h, w, c, 3, 3), x.dtype)
    for dy in range(3):
        for dx in range(3):
            cols[..., dy, dx] = xp[:, :, dy:dy + h, dx:dx + w].transpose(0, 2, 3, 1)
    return cols.reshape(b, h, w, c * 9)


def col2im3(dcols, c):
    """Adjoint of im2col3: [B,H,W,C*9] -> [B,C,H,W]."""
    b, h, w, _ = dcols.shape
    d = dcols.reshape(b, h, w, c, 3, 3)
    dxp = np.zeros((b, c, h + 2, w + 2), dcols.dtype)
    for dy in range(3):
        for dx in range(3):
            dxp[:, :, dy:dy + h, dx:dx + w] += d[..., dy, dx].transpose(0, 3, 1, 2)
    return dxp[:, :, 1:-1, 1:-1]


def conv_fwd(x, wgt, bias):
    cols = im2col3(x)
    oc = wgt.shape[0]
    y = cols @ wgt.reshape(oc, -1).T + bias
    return y.transpose(0, 3, 1, 2), cols


def conv_bwd(dy, cols, wgt):
    oc, c = wgt.shape[0], wgt.shape[1]
    dyf = dy.transpose(0, 2, 3, 1)
    dw = (cols.reshape(-1, cols.shape[-1]).T @ dyf.reshape(-1, oc)).T.reshape(wgt.shape)
    db = dyf.sum(axis=(0, 1, 2))
    dx = col2im3(dyf @ wgt.reshape(oc, -1), c)
    return dx, dw, db


def pool_fwd(x):
    b, c, h, w = x.shape
    r = x.reshape(b, c, h // 2, 2, w // 2, 2)
    y = r.max(axis=(3, 5))
    mask = r == y[:, :, :, None, :, None]
    # one winner per window, so the gradient is not duplicated on ties
    first = np.cumsum(np.cumsum(mask, axis=3), axis=5) == 1
    return y, mask & first


def pool_bwd(dy, mask):
    return (mask * dy[:, :, :, None, :, None]).reshape(
        mask.shape[0], mask.shape[1], mask.shape[2] * 2, mask.shape[4] * 2)


class Model:
    def __init__(self, rng):
        def he(shape, fan_in):
            return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        self.p = {
            "w1": he((8, 1, 3, 3), 9), "b1": np.zeros(8, np.float32),
            "w2": he((16, 8, 3, 3), 72), "b2": np.zeros(16, np.float32),
            "w3": he((64, 784), 784), "b3": np.zeros(64, np.float32),
            "w4": he((10, 64), 64), "b4": np.zeros(10, np.float32),
        }

    def forward(self, x, keep=False):
        p = self.p
        a1, c1 = conv_fwd(x, p["w1"], p["b1"])
        r1 = np.maximum(a1, 0)
        p1, m1 = pool_fwd(r1)
        a2, c2 = conv_fwd(p1, p["w2"], p["b2"])
        r2 = np.maximum(a2, 0)
        p2, m2 = pool_fwd(r2)
        f = p2.reshape(p2.shape[0], -1)
        a3 = f @ p["w3"].T + p["b3"]
        r3 = np.maximum(a3, 0)
        out = r3 @ p["w4"].T + p["b4"]
        if keep:
            self.cache = (c1, a1, m1, c2, a2, m2, f, a3, r3, p2.shape)
        return out

    def backward(self, dout):
        p = self.p
        c1, a1, m1, c2, a2, m2, f, a3, r3, p2shape = self.cache
        g = {"w4": dout.T @ r3, "b4": dout.sum(0)}
        dr3 = dout @ p["w4"]
        da3 = dr3 * (a3 > 0)
        g["w3"] = da3.T @ f
        g["b3"] = da3.sum(0)
        dp2 = (da3 @ p["w3"]).reshape(p2shape)
        da2 = pool_bwd(dp2, m2) * (a2 > 0)
        dp1, g["w2"], g["b2"] = conv_bwd(da2, c2, p["w2"])
        da1 = pool_bwd(dp1, m1) * (a1 > 0)
        _, g["w1"], g["b1"] = conv_bwd(da1, c1, p["w1"])
        return g


def softmax_xent(logits, labels):
    z = logits - logits.max(1, keepdims=True)
    e = np.exp(z)
    prob = e / e.sum(1, keepdims=True)
    loss = -np.log(prob[np.arange(len(labels)), labels] + 1e-12).mean()
    d = prob
    d[np.arange(len(labels)), labels] -= 1
    return loss, d / len(labels)


def accuracy(model, x, y):
    correct = 0
    for i in range(0, len(x), 1000):
        correct += int((model.forward(x[i:i + 1000]).argmax(1) == y[i:i + 1000]).sum())
    return correct / len(x)


def export(model, path):
    p = model.p
    inits = [numpy_helper.from_array(v, k) for k, v in p.items()]
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["conv1"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv1"], ["relu1"]),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1", "w2", "b2"], ["conv2"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv2"], ["relu2"]),
        helper.make_node("MaxPool", ["relu2"], ["pool2"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool2"], ["flat"], axis=1),
        helper.make_node("Gemm", ["flat", "w3", "b3"], ["fc1"], transB=1),
        helper.make_node("Relu", ["fc1"], ["relu3"]),
        helper.make_node("Gemm", ["relu3", "w4", "b4"], ["logits"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "fmnist_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 1, 28, 28])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        inits)
    m = helper.make_model(graph, producer_name="rkbare models/fashion_mnist/train.py",
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, path)


def main():
    rng = np.random.default_rng(SEED)
    xtr = load_idx("train-images-idx3-ubyte.gz").astype(np.float32)[:, None] / 255.0
    ytr = load_idx("train-labels-idx1-ubyte.gz").astype(np.int64)
    xte = load_idx("t10k-images-idx3-ubyte.gz").astype(np.float32)[:, None] / 255.0
    yte = load_idx("t10k-labels-idx1-ubyte.gz").astype(np.int64)
    model = Model(rng)
    m = {k: np.zeros_like(v) for k, v in model.p.items()}
    v = {k: np.zeros_like(v) for k, v in model.p.items()}
    step = 0
    for epoch in range(EPOCHS):
        order = rng.permutation(len(xtr))
        for i in range(0, len(order), BATCH):
            idx = order[i:i + BATCH]
            loss, d = softmax_xent(model.forward(xtr[idx], keep=True), ytr[idx])
            g = model.backward(d.astype(np.float32))
            step += 1
            for k in model.p:  # Adam
                m[k] = 0.9 * m[k] + 0.1 * g[k]
                v[k] = 0.999 * v[k] + 0.001 * g[k] * g[k]
                mh = m[k] / (1 - 0.9 ** step)
                vh = v[k] / (1 - 0.999 ** step)
                model.p[k] = (model.p[k] - LR * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        print(f"epoch {epoch + 1}: loss {loss:.3f}, test accuracy {accuracy(model, xte, yte):.4f}",
              flush=True)
    out = os.path.join(HERE, "fmnist_cnn.onnx")
    export(model, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
