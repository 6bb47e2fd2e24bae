// Every model file in the shared test data inspects cleanly, and its tensor
// directory accounts for the whole file.
import { inspect } from '../../web/src/index.js';
import { allModelFiles, describeWithTestdata, testdataPath } from './helpers/testdata.js';

describeWithTestdata('every test model inspects', () => {
  const files = allModelFiles();

  test('finds the model files', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  test.each(files)('%s', async (file) => {
    const r = await inspect(testdataPath(file));
    if (r.tensors.length === 0) { // a vocabulary-only GGUF: nothing after the (padded) header
      expect(r.format).toBe('gguf');
      expect(r.tokenizer.size).toBeGreaterThan(0);
      expect(r.dataOffset - r.fileSize).toBeGreaterThanOrEqual(0);
      expect(r.dataOffset - r.fileSize).toBeLessThan(r.alignment);
      return;
    }
    const end = Math.max(...r.tensors.map((t) => t.offset + t.nbytes));
    if (r.format === 'gguf') {
      expect(r.fileSize - end).toBeGreaterThanOrEqual(0);
      expect(r.fileSize - end).toBeLessThan(r.alignment);
      for (const t of r.tensors) expect(t.offset % r.alignment).toBe(0);
    } else {
      expect(end).toBe(r.fileSize);
    }
  });
});
