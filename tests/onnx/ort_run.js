#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The reference engine of the ONNX tests: runs a model in onnxruntime (CPU,
// one thread unless --threads) on .npy inputs and writes each output as
// OUTDIR/<name>.npy, the same contract as `rkbare infer`.
//
// It is the tests' judge of quantised models, so by default it runs with the
// graph optimisations off: a QDQ model then runs as written, DequantizeLinear
// -> float op -> QuantizeLinear. Dequantising is one float multiply, the op
// runs in float32 and QuantizeLinear rounds half to even as ONNX defines; the
// only departure from the exact definition is float32 rounding (relative
// 2^-24 per step), which moves a result only when its exact value lies that
// close to a rounding tie, and then by 1 LSB; with power-of-two scales and
// sums below 2^24 every step is exact. Optimised, onnxruntime fuses the QDQ
// groups into integer kernels whose arithmetic depends on the CPU (on AVX2
// without VNNI their 8-bit multiply-adds saturate: tens of LSB off), so
// --fused (all optimisations) is only a second opinion, never a gate.
// --rkbare-names: '/' and ':' in an output name become '_' in its file name,
// as rkbare names its files (tools/cli_parse.h cli_output_path).
// Usage: ort_run.js MODEL.onnx --input NAME=FILE.npy ... --output-dir DIR [--threads N] [--fused]
//        [--rkbare-names]
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

// .npy element types <-> onnxruntime tensor types and typed arrays
const TYPES = {
  '<f4': ['float32', Float32Array], '<f2': ['float16', Uint16Array],
  '<f8': ['float64', Float64Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '<i2': ['int16', Int16Array],
  '<i4': ['int32', Int32Array], '<i8': ['int64', BigInt64Array],
  '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const v1 = b[6] === 1;
  const hlen = v1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const off = (v1 ? 10 : 12) + hlen;
  const hdr = b.toString('latin1', v1 ? 10 : 12, off);
  const descr = /'descr':\s*'([^']+)'/.exec(hdr)[1].replace(/^<([iub]1)$/, '|$1');
  if (/'fortran_order':\s*True/.test(hdr)) throw new Error(`${file}: Fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(hdr)[1].split(',').map((s) => s.trim())
    .filter((s) => s.length).map(Number);
  const t = TYPES[descr];
  if (!t) throw new Error(`${file}: element type ${descr} not supported`);
  const n = shape.reduce((a, x) => a * x, 1);
  const data = new t[1](n);
  new Uint8Array(data.buffer).set(b.subarray(off, off + n * t[1].BYTES_PER_ELEMENT));
  return new ort.Tensor(t[0], data, shape);
}

function writeNpy(file, tensor) {
  const descr = Object.keys(TYPES).find((k) => TYPES[k][0] === tensor.type);
  if (!descr) throw new Error(`output type ${tensor.type} not supported`);
  const dims = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let hdr = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  hdr += ' '.repeat((64 - ((10 + hdr.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre.writeUInt16LE(hdr.length, 8);
  const data = tensor.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(hdr, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

async function main(argv) {
  const feeds = {};
  let model = null;
  let outDir = null;
  let threads = 1;
  let optimisation = 'disabled';
  let fileName = (name) => name;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--input') {
      const m = /^([^=]+)=(.+)$/.exec(argv[++i] || '');
      if (!m) throw new Error('--input needs NAME=FILE.npy');
      feeds[m[1]] = readNpy(m[2]);
    } else if (argv[i] === '--output-dir') outDir = argv[++i];
    else if (argv[i] === '--threads') threads = Number(argv[++i]);
    else if (argv[i] === '--fused') optimisation = 'all';
    else if (argv[i] === '--rkbare-names') fileName = (name) => name.replace(/[/:]/g, '_');
    else if (!model) model = argv[i];
    else throw new Error(`unexpected argument ${argv[i]}`);
  }
  if (!model || !outDir) throw new Error('usage: ort_run.js MODEL.onnx --input NAME=FILE.npy ... --output-dir DIR');
  const s = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: optimisation,
  });
  const out = await s.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of s.outputNames) writeNpy(path.join(outDir, `${fileName(name)}.npy`), out[name]);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(`ort_run: ${e.message}`);
  process.exit(2);
});
