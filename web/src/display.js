// Small helpers for showing inspect() results to people (CLI and pages).

const FORMAT_NAMES = { gguf: 'GGUF', 'rwkv-bin': 'rwkv.cpp', ggml: 'GGML', ggmf: 'GGMF', ggjt: 'GGJT' };

/** 'GGUF v3', 'rwkv.cpp v101', ... */
export function formatLabel({ format, version }) {
  if (format === 'pytorch-zip') return 'PyTorch zip (torch.save)';
  if (format === 'pytorch-legacy') return 'PyTorch legacy pickle (torch < 1.6)';
  if (format === 'meta-checkpoint') return 'Meta LLaMA checkpoint (params.json + consolidated.NN.pth)';
  return `${FORMAT_NAMES[format] ?? format} v${version}`;
}

/** float32 values as their shortest round-tripping decimal (1e-5, not 0.0000099999997…). */
export function shortestFloat32(v) {
  if (Number.isInteger(v) || Math.fround(v) !== v) return String(v);
  for (let digits = 1; digits < 9; digits++) {
    const short = Number(v.toPrecision(digits));
    if (Math.fround(short) === v) return String(short);
  }
  return String(v);
}
