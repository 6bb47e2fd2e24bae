// A ByteSource over a local file in Node (a path or a file: URL).
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { WasmLMError } from '../errors.js';

export async function openNodeFileSource(location) {
  const path = location.startsWith('file:') ? fileURLToPath(location) : location;
  let handle;
  try {
    handle = await open(path, 'r');
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    return {
      size: stat.size,
      async read(offset, length) {
        const buffer = new Uint8Array(length);
        const { bytesRead } = await handle.read(buffer, 0, length, offset);
        return buffer.subarray(0, bytesRead);
      },
      close: () => handle.close(),
    };
  } catch (cause) {
    await handle?.close();
    throw new WasmLMError('IO', `cannot read ${path}: ${cause.message}`, { cause });
  }
}
