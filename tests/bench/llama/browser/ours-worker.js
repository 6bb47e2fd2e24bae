// wasmlm in a module Worker (the product's home): one timed run per message.
import { openModel } from '/web/src/index.js';
import { benchOurs } from '../bench-ours.js';

self.onmessage = async ({ data }) => {
  try {
    const result = await benchOurs(openModel, data.url, data);
    self.postMessage({ ...result, crossOriginIsolated: self.crossOriginIsolated });
  } catch (error) {
    self.postMessage({ error: String(error?.stack ?? error) });
  }
};
