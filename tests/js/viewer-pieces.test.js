// The model viewer's pieces, in Node: a dropped folder's files
// (webkitGetAsEntry / readEntries, batch by batch), the value histogram of a
// .pth tensor (read in JS from its storage) against torch, and of quantized
// tensors (every value dequantized) against llama.cpp's gguf-py.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { inspect, releaseWasmModules } from '../../web/src/index.js';
import { droppedFiles, modelInput } from '../../web/pages/dropped-files.js';
import { tensorHistogram } from '../../web/pages/tensor-histogram.js';
import { describeWithTestdata, testdataPath } from './helpers/testdata.js';

const TORCH_PYTHON = '/usr/bin/python3';

/** A DataTransfer as Chromium gives it for one dropped folder whose reader hands out entries in batches. */
function folderDrop(files, batch = 2) {
  const entries = files.map((file) => ({ isFile: true, isDirectory: false, file: (resolve) => resolve(file) }));
  const folder = {
    isFile: false,
    isDirectory: true,
    createReader() {
      let at = 0;
      return { readEntries: (resolve) => { resolve(entries.slice(at, at + batch)); at += batch; } };
    },
  };
  return { items: [{ webkitGetAsEntry: () => folder }], files: [] };
}

test('a dropped folder gives all its files (over several readEntries batches); dropped files give themselves', async () => {
  const files = ['params.json', 'consolidated.00.pth', 'consolidated.01.pth', 'tokenizer.model'].map((n) => new File(['x'], n));
  expect((await droppedFiles(folderDrop(files))).map((f) => f.name)).toEqual(files.map((f) => f.name));
  const plain = { items: files.map((f) => ({ webkitGetAsEntry: () => ({ isFile: true, isDirectory: false }) })), files };
  expect(await droppedFiles(plain)).toEqual(files);
  expect(modelInput(files.slice(0, 1))).toBe(files[0]);
  expect(modelInput(files)).toEqual(files);
});

describeWithTestdata('histograms of PyTorch tensors', () => {
  afterAll(() => releaseWasmModules());

  test.each([
    ['pytorch/burn/bfloat16.pt', null],
    ['pytorch/candle/fortran_tensor_3d.pth', 'tensor_fortran'], // a transposed view: its values fill their span
    ['pytorch/meta-stories260K/bf16/consolidated.00.pth', 'layers.0.attention.wq.weight'],
  ])('%s: count, min and max as torch has them, every value in a bin', async (rel, name) => {
    const file = testdataPath(rel);
    const { tensors } = await inspect(file);
    const tensor = name ? tensors.find((t) => t.name === name) : tensors[0];
    const want = JSON.parse(execFileSync(TORCH_PYTHON, ['-c', `
import json, sys, torch
t = torch.load(sys.argv[1], map_location='cpu')[sys.argv[2]].double()
print(json.dumps({'n': t.numel(), 'min': t.min().item(), 'max': t.max().item()}))`, file, tensor.name], { encoding: 'utf8' }));
    const h = await tensorHistogram(new Blob([fs.readFileSync(file)]), tensor);
    expect(h.n).toBe(want.n);
    expect(h.min).toBe(want.min);
    expect(h.max).toBe(want.max);
    expect(h.counts.reduce((a, b) => a + b, 0)).toBe(want.n);
  });
});

describeWithTestdata('histograms of quantized tensors', () => {
  const reference = JSON.parse(fs.readFileSync(testdataPath('synth-kq/reference/dequant-reference.json'), 'utf8'));
  afterAll(() => releaseWasmModules());

  // Every value is dequantized (K-quant blocks of 256 too, not a sample): the
  // counts add up to llama.cpp's element count, and the mean of the bin
  // centres is within half a bin of gguf-py's mean.
  test.each(['synth-kq-Q2_K.gguf', 'synth-kq-Q5_K_S.gguf', 'synth-kq-pure-IQ4_XS.gguf', 'synth-kq-Q8_0.gguf'])('%s: every tensor\'s values', async (file) => {
    const path = testdataPath(`synth-kq/${file}`);
    const { tensors } = await inspect(path);
    const blob = new Blob([fs.readFileSync(path)]);
    for (const tensor of tensors.filter((t) => t.shape.length === 2)) {
      const ref = reference[file][tensor.name];
      const h = await tensorHistogram(blob, tensor, { bins: 64 });
      expect(h.sampled).toBe(false);
      expect(h.counts.reduce((a, b) => a + b, 0)).toBe(ref.n);
      const width = (h.hi - h.lo) / h.counts.length;
      const mean = h.counts.reduce((sum, c, i) => sum + c * (h.lo + (i + 0.5) * width), 0) / ref.n;
      expect(Math.abs(mean - ref.sum / ref.n)).toBeLessThanOrEqual(width / 2);
    }
  });
});
