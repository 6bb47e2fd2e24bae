// inspect() reports what is known about the shared test models.
import { inspect } from '../../web/src/index.js';
import {
  describeWithTestdata, RWKV_5V2_FP32, STORIES_CRABML_V1, STORIES_GGUF, STORIES_LLAMA4J_V2, TESTDATA,
  TINYLLAMA_GGJT, testdataPath,
} from './helpers/testdata.js';
import fs from 'node:fs';

describeWithTestdata('inspect() facts about the test models', () => {
  test('stories260K.gguf: GGUF v3 LLaMA with GQA and a 512-token SentencePiece vocab', async () => {
    const r = await inspect(testdataPath(STORIES_GGUF));
    expect(r).toMatchObject({ format: 'gguf', version: 3, endianness: 'little', alignment: 32 });
    expect(r.tensors).toHaveLength(48);
    expect(r.architecture).toMatchObject({
      name: 'llama', embeddingLength: 64, blockCount: 5, headCount: 8, headCountKv: 4, feedForwardLength: 172,
      vocabSize: 512,
    });
    expect(r.metadata['llama.embedding_length']).toBe(64);
    expect(r.tokenizer).toMatchObject({ model: 'llama', size: 512, bos: 1, eos: 2, unk: 0, hasChatTemplate: false });
    expect(r.metadata['tokenizer.ggml.tokens'].slice(0, 3)).toEqual(['<unk>', '<s>', '</s>']);
    expect(r.metadata['tokenizer.ggml.scores']).toBeInstanceOf(Float32Array);
    expect(r.metadataTypes['tokenizer.ggml.tokens']).toBe('array<string>');
    expect(r.tensors[0]).toEqual({
      name: 'token_embd.weight', type: 'F32', typeId: 0, shape: [64, 512], offset: r.dataOffset, nbytes: 64 * 512 * 4,
    });
    expect(r.bytesByType).toEqual({ F32: r.tensors.reduce((n, t) => n + t.nbytes, 0) });
    expect(r.tensorCountByType).toEqual({ F32: 48 });
    expect(r.parameterCount).toBe(r.bytesByType.F32 / 4);
    expect(r.split).toBeNull();
  });

  test('the crabml copy is GGUF v1 and the llama4j copy GGUF v2 (Q8_0)', async () => {
    const v1 = await inspect(testdataPath(STORIES_CRABML_V1));
    expect(v1).toMatchObject({ format: 'gguf', version: 1 });
    expect(v1.tensors).toHaveLength(48);
    const v2 = await inspect(testdataPath(STORIES_LLAMA4J_V2));
    expect(v2).toMatchObject({ format: 'gguf', version: 2 });
    expect(v2.tensorCountByType.Q8_0).toBeGreaterThan(0);
  });

  test('TinyLLama-v0 is GGJT v3 with 75 tensors and a 32000-token vocab', async () => {
    const r = await inspect(testdataPath(TINYLLAMA_GGJT));
    expect(r).toMatchObject({ format: 'ggjt', version: 3 });
    expect(r.tensors).toHaveLength(75);
    expect(r.tokenizer.size).toBe(32000);
    expect(r.architecture).toMatchObject({ name: 'llama', vocabSize: 32000, embeddingLength: 64, blockCount: 8 });
    expect(Object.keys(r.bytesByType).sort()).toEqual(['F32', 'Q4_0']);
  });

  test('tiny-rwkv-5v2 FP32 is an rwkv.cpp v101 file of RWKV 5.2', async () => {
    const r = await inspect(testdataPath(RWKV_5V2_FP32));
    expect(r).toMatchObject({ format: 'rwkv-bin', version: 101 });
    expect(r.architecture).toMatchObject({ name: 'rwkv', rwkvVersion: '5.2', vocabSize: 256 });
    expect(r.tokenizer.model).toBeNull();
  });

  const rwkvFiles = fs.existsSync(TESTDATA)
    ? fs.readdirSync(testdataPath('rwkv')).filter((f) => /^tiny-rwkv-.*\.bin$/.test(f))
    : [];
  test.each(rwkvFiles)('%s: the RWKV version its name says', async (file) => {
    const [, major, minor] = /^tiny-rwkv-(\d)v(\d)/.exec(file);
    const r = await inspect(testdataPath(`rwkv/${file}`));
    expect(r.architecture.rwkvVersion).toBe(minor === '0' ? major : `${major}.${minor}`);
    expect(r.version).toBe(major === '4' && /FP(32|16)/.test(file) ? 100 : 101);
  });
});
