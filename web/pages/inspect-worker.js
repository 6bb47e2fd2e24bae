// The model viewer's worker: reads model files off the main thread.
// Messages in: {id, source} (a URL string or a File) -> inspect() (the header
// only); {id, source, tensor, littleEndian} -> a value histogram of that one
// tensor; {cancel: id}. Out: {id, result} or {id, error}.
import { inspect } from '../src/index.js';
import { tensorHistogram } from './tensor-histogram.js';

const running = new Map();

self.onmessage = async ({ data }) => {
  if (data.cancel) {
    running.get(data.cancel)?.abort();
    return;
  }
  const controller = new AbortController();
  const { signal } = controller;
  running.set(data.id, controller);
  try {
    const result = data.tensor
      ? await tensorHistogram(data.source, data.tensor, { littleEndian: data.littleEndian, signal })
      : await inspect(data.source, { signal });
    self.postMessage({ id: data.id, result });
  } catch (error) {
    const { name, code = null, offset = null, message } = error;
    self.postMessage({ id: data.id, error: { name, code, offset, message } });
  } finally {
    running.delete(data.id);
  }
};
