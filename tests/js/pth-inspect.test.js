// inspect() and `wasmlm inspect` on PyTorch checkpoints: the tensor
// directory read in wasm from byte ranges (a path, a Blob, a URL with Range
// requests), never executing the pickle, equal to what torch itself reports.
import { execFileSync, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { inspect, loadWasmModule, releaseWasmModules, tensorStats } from '../../web/src/index.js';
import { startServer } from '../../scripts/serve.js';
import { describeWithTestdata, REPO_ROOT, TESTDATA, testdataPath } from './helpers/testdata.js';

const run = promisify(execFile);
const TORCH_PYTHON = '/usr/bin/python3';
const FILES = ['pytorch/meta-stories260K/f32/consolidated.00.pth', 'pytorch/meta-stories260K/legacy-f32/consolidated.00.pth',
  'pytorch/candle/fortran_tensor_3d.pth', 'pytorch/burn/bfloat16.pt', 'pytorch/torchtune/tiny_llama2_checkpoint.pt'];

/**
 * torch's view of a checkpoint: {name: {dtype, shape, stride}} with nested
 * dict keys joined by ".", and (Python's own reading) the pickle protocol of
 * data.pkl, or of a legacy file's object pickle (after three small pickles).
 */
function torchDirectory(file) {
  const script = `
import json, sys, torch
DT = {torch.float32: 'F32', torch.float16: 'F16', torch.bfloat16: 'BF16', torch.float64: 'F64', torch.int8: 'I8',
      torch.int16: 'I16', torch.int32: 'I32', torch.int64: 'I64', torch.uint8: 'U8', torch.bool: 'BOOL'}
out = {}
def walk(prefix, v):
    if isinstance(v, torch.Tensor):
        out[prefix] = {'dtype': DT[v.dtype], 'shape': list(v.shape), 'stride': list(v.stride())}
    elif isinstance(v, dict):
        for k, x in v.items(): walk(f'{prefix}.{k}' if prefix else str(k), x)
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v): walk(f'{prefix}.{i}' if prefix else str(i), x)
walk('', torch.load(sys.argv[1], map_location='cpu'))
import pickle, zipfile
if zipfile.is_zipfile(sys.argv[1]):
    z = zipfile.ZipFile(sys.argv[1])
    head = z.read(next(n for n in z.namelist() if n.endswith('data.pkl')))[:2]
else:
    f = open(sys.argv[1], 'rb')
    for _ in range(3): pickle.load(f)
    head = f.read(2)
print(json.dumps({'tensors': out, 'protocol': head[1] if head[0] == 0x80 else 0}))`;
  return JSON.parse(execFileSync(TORCH_PYTHON, ['-c', script, file], { encoding: 'utf8' }));
}

const haveTorch = (() => {
  try {
    execFileSync(TORCH_PYTHON, ['-c', 'import torch'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error(`${TORCH_PYTHON} with torch is needed (python3-torch)`);
    console.warn(`[skip] ${TORCH_PYTHON} has no torch: PyTorch comparisons skipped`);
    return false;
  }
})();

/** torch's values of every tensor: {name: {n, sum, sumsq, min, max, first32}} (first32 in logical order). */
function torchStats(file) {
  const script = `
import json, math, sys, torch
out = {}
def walk(prefix, v):
    if isinstance(v, torch.Tensor):
        x = v.detach().reshape(-1).to(torch.float64)
        finite = x[~torch.isnan(x)]
        num = lambda a: a if math.isfinite(a) else repr(a)  # 'nan', 'inf', '-inf'
        out[prefix] = {'n': x.numel(), 'sum': num(x.sum().item()), 'sumsq': num((x * x).sum().item()),
                       'min': num(finite.min().item()) if finite.numel() else None,
                       'max': num(finite.max().item()) if finite.numel() else None,
                       'first32': [num(a) for a in x[:32].tolist()]}
    elif isinstance(v, dict):
        for k, y in v.items(): walk(f'{prefix}.{k}' if prefix else str(k), y)
    elif isinstance(v, (list, tuple)):
        for i, y in enumerate(v): walk(f'{prefix}.{i}' if prefix else str(i), y)
walk('', torch.load(sys.argv[1], map_location='cpu'))
print(json.dumps(out))`;
  return JSON.parse(execFileSync(TORCH_PYTHON, ['-c', script, file], { encoding: 'utf8' }));
}

const STATS_FILES = ['pytorch/candle/fortran_tensor_3d.pth', 'pytorch/burn/bfloat16.pt', 'pytorch/burn/float16.pt',
  'pytorch/burn/int64.pt', 'pytorch/burn/special_values.pt', 'pytorch/burn/legacy_with_offsets.pt', 'pytorch/meta-stories260K/legacy-f32/consolidated.00.pth'];

describeWithTestdata('tensorStats() on PyTorch checkpoints', () => {
  afterAll(() => releaseWasmModules());

  (haveTorch ? test.each(STATS_FILES) : test.skip.each(STATS_FILES))('%s: every tensor\'s values as torch has them', async (rel) => {
    const file = testdataPath(rel);
    const want = torchStats(file);
    const { tensors } = await inspect(file);
    expect(tensors.length).toBe(Object.keys(want).length);
    for (const t of tensors) {
      const got = await tensorStats(file, t.name);
      const w = want[t.name];
      // torch's non-finite numbers come as Python's repr: 'nan', 'inf', '-inf'.
      const value = (v) => (typeof v === 'string' ? { nan: NaN, inf: Infinity, '-inf': -Infinity }[v] : v);
      const near = (a, b) => Object.is(a, value(b)) || Math.abs(a - value(b)) <= 1e-9 * Math.max(1, Math.abs(value(b)));
      expect({ name: t.name, type: got.type, shape: got.shape, n: got.n }).toEqual({ name: t.name, type: t.dtype, shape: t.shape, n: w.n });
      expect([near(got.sum, w.sum), near(got.sumsq, w.sumsq)]).toEqual([true, true]);
      if (w.min != null) expect([got.min, got.max]).toEqual([value(w.min), value(w.max)]);
      expect(got.first32).toEqual(w.first32.map(value));
    }
  });

  test('a tensor name that is not there is BAD_FORMAT', async () => {
    await expect(tensorStats(testdataPath('pytorch/burn/float16.pt'), 'nope')).rejects.toMatchObject({ code: 'BAD_FORMAT' });
  });
});

describeWithTestdata('PyTorch checkpoints through inspect()', () => {
  let server;
  beforeAll(async () => {
    server = await startServer({ port: 0, root: REPO_ROOT, testdata: TESTDATA });
  });
  afterAll(async () => {
    await server.close();
    releaseWasmModules();
  });

  (haveTorch ? test.each(FILES) : test.skip.each(FILES))('%s: the tensors torch reports, from a path, a Blob and a URL', async (rel) => {
    const file = testdataPath(rel);
    const want = torchDirectory(file);
    const fromPath = await inspect(file);
    expect(fromPath.format).toMatch(/^pytorch-(zip|legacy)$/);
    const got = Object.fromEntries(fromPath.tensors.map((t) => [t.name, { dtype: t.dtype, shape: t.shape, stride: t.stride }]));
    expect(got).toEqual(want.tensors);
    expect(fromPath.pickleProtocol).toBe(want.protocol);
    expect(await inspect(new Blob([fs.readFileSync(file)]))).toEqual(fromPath);
    expect(await inspect(`${server.url}/testdata/${rel}`)).toEqual(fromPath);
  });

  (haveTorch ? test : test.skip)('a Meta checkpoint folder (path, or its Files): params.json and each shard\'s tensors as torch has them', async () => {
    const dir = testdataPath('pytorch/meta-stories260K/mp2-bf16');
    const result = await inspect(dir);
    expect(result.format).toBe('meta-checkpoint');
    expect(result.params).toEqual(JSON.parse(fs.readFileSync(`${dir}/params.json`, 'utf8')));
    expect(result.tokenizerFile).toBe('tokenizer.model');
    expect(result.shards.map((s) => [s.name, s.format, s.fileSize])).toEqual([0, 1].map((k) => [
      `consolidated.0${k}.pth`, 'pytorch-zip', fs.statSync(`${dir}/consolidated.0${k}.pth`).size]));
    for (const k of [0, 1]) {
      const want = torchDirectory(`${dir}/consolidated.0${k}.pth`);
      const got = result.tensors.filter((t) => t.shard === k);
      expect(Object.fromEntries(got.map((t) => [t.name, { dtype: t.dtype, shape: t.shape, stride: t.stride }]))).toEqual(want.tensors);
      expect(result.shards[k].pickleProtocol).toBe(want.protocol);
    }
    const files = ['consolidated.01.pth', 'params.json', 'consolidated.00.pth'].map((name) => new File([fs.readFileSync(`${dir}/${name}`)], name));
    const fromFiles = await inspect(files);
    expect(fromFiles.tensors).toEqual(result.tensors);
    expect(fromFiles.tokenizerFile).toBe(null);
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'inspect', dir], { cwd: REPO_ROOT });
    expect(stdout).toContain('Meta LLaMA checkpoint');
    expect(stdout).toMatch(/Shards \(2\), tokenizer tokenizer\.model/);
    expect(stdout).toMatch(/1 +layers\.4\.feed_forward\.w2\.weight +BF16 +64 × 86/);
  });

  test('an 8 MB data.pkl (hostile/make_slow_ranges.py) is parsed once, not again after every 64 KB range', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-slow-ranges-'));
    try {
      const file = path.join(dir, 'slow.pth');
      execFileSync(TORCH_PYTHON, [testdataPath('hostile/make_slow_ranges.py'), '4000000', file], { stdio: 'ignore' });
      await loadWasmModule();
      const started = performance.now();
      const result = await inspect(file);
      // Parsing from the start after each of its 123 ranges took ~8 s here; once, ~0.3 s.
      expect(performance.now() - started).toBeLessThan(3000);
      expect(result.tensors).toEqual([expect.objectContaining({ name: 'w', dtype: 'F32', shape: [2, 2], stride: [2, 1], contiguous: true })]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('`wasmlm inspect --json` lists {name, dtype, shape, stride, storage, offset}; a broken file is a typed error', async () => {
    const { stdout } = await run('node', ['web/bin/wasmlm.js', 'inspect', testdataPath(FILES[2]), '--json'], { cwd: REPO_ROOT });
    const result = JSON.parse(stdout);
    expect(result.tensors).toEqual([expect.objectContaining({
      name: 'tensor_fortran', dtype: 'I64', shape: [2, 3, 4], stride: [1, 2, 6], storage: '0', contiguous: false,
    })]);
    const broken = await run('node', ['web/bin/wasmlm.js', 'inspect', testdataPath('pytorch/burn/broken.pt')], { cwd: REPO_ROOT }).catch((e) => e);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/wasmlm inspect: (TRUNCATED|BAD_FORMAT)/);
  });
});
