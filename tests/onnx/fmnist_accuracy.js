// SPDX-License-Identifier: MIT
// Accuracy of ONNX classifiers on the Fashion-MNIST test set (Debian's
// dataset-fashion-mnist) in onnxruntime, one thread, graph optimisations off
// (a QDQ model then runs unfused, as ort_run.js explains: the same accuracy
// on every CPU).
// Usage: node fmnist_accuracy.js MODEL.onnx...   prints "MODEL accuracy" lines
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const ort = require('onnxruntime-node');

const DATA = '/usr/share/datasets/fashion-mnist';

(async () => {
  const img = zlib.gunzipSync(fs.readFileSync(`${DATA}/t10k-images-idx3-ubyte.gz`)).subarray(16);
  const lab = zlib.gunzipSync(fs.readFileSync(`${DATA}/t10k-labels-idx1-ubyte.gz`)).subarray(8);
  const n = lab.length;
  const x = new Float32Array(n * 784);
  for (let i = 0; i < x.length; i++) x[i] = img[i] / 255;
  for (const model of process.argv.slice(2)) {
    const s = await ort.InferenceSession.create(model, {
      intraOpNumThreads: 1, graphOptimizationLevel: 'disabled',
    });
    const r = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', x, [n, 1, 28, 28]) });
    const l = r[s.outputNames[0]].data;
    let ok = 0;
    for (let k = 0; k < n; k++) {
      let best = 0;
      for (let c = 1; c < 10; c++) if (l[k * 10 + c] > l[k * 10 + best]) best = c;
      if (best === lab[k]) ok++;
    }
    console.log(`${model} ${(ok / n).toFixed(4)}`);
  }
})().catch((e) => { console.error(`fmnist_accuracy: ${e.message}`); process.exit(2); });
