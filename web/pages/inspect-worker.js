// Runs inspect() off the main thread. Messages in: {id, source} (a URL
// string or a File) and {cancel: id}; out: {id, result} or {id, error}.
import { inspect } from '../src/index.js';

const running = new Map();

self.onmessage = async ({ data }) => {
  if (data.cancel) {
    running.get(data.cancel)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(data.id, controller);
  try {
    const result = await inspect(data.source, { signal: controller.signal });
    self.postMessage({ id: data.id, result });
  } catch (error) {
    const { name, code = null, offset = null, message } = error;
    self.postMessage({ id: data.id, error: { name, code, offset, message } });
  } finally {
    running.delete(data.id);
  }
};
