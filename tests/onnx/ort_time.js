#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// onnxruntime's time for one model on one .npy input, one thread, best of
// RUNS after a warm-up: the reference figure of make bench.
// usage: ort_time.js MODEL.onnx NAME=FILE.npy RUNS   prints "ort_ms <best>"
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

const TYPES = { '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array], '<f4': ['float32', Float32Array] };

function readNpy(path) {
  const b = fs.readFileSync(path);
  const hlen = b.readUInt16LE(8);
  const header = b.toString('latin1', 10, 10 + hlen);
  const descr = /'descr': '([^']+)'/.exec(header)[1];
  const shape = /'shape': \(([^)]*)\)/.exec(header)[1].split(',').filter((s) => s.trim()).map(Number);
  const [type, Arr] = TYPES[descr];
  const data = new Arr(b.buffer.slice(b.byteOffset + 10 + hlen, b.byteOffset + b.length));
  return new ort.Tensor(type, data, shape);
}

(async () => {
  const [model, input, runs] = process.argv.slice(2);
  const [name, file] = input.split('=');
  const s = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const feeds = { [name]: readNpy(file) };
  await s.run(feeds);
  let best = Infinity;
  for (let i = 0; i < Number(runs); i++) {
    const t = process.hrtime.bigint();
    await s.run(feeds);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6);
  }
  console.log(`ort_ms ${best.toFixed(3)}`);
})().catch((e) => { console.error(`ort_time: ${e.message}`); process.exit(2); });
