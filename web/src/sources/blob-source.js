import { WasmLMError } from '../errors.js';

/** A ByteSource over a Blob or File: only the slices asked for are read. */
export function blobSource(blob) {
  return {
    size: blob.size,
    async read(offset, length) {
      try {
        return new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer());
      } catch (cause) {
        throw new WasmLMError('IO', `cannot read the file: ${cause.message}`, { cause });
      }
    },
  };
}
