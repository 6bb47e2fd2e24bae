// openChunkReader: byte streams are read into one recycled buffer (BYOB),
// other streams with their default reader; either way every byte arrives,
// in order.
import { openChunkReader } from '../../web/src/sources/chunk-reader.js';

function pattern(n, seed) {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

/** A stream of `pieces`, as a byte stream or a plain one. */
function streamOf(pieces, { bytes }) {
  let next = 0;
  return new ReadableStream({
    type: bytes ? 'bytes' : undefined,
    pull(controller) {
      if (next < pieces.length) controller.enqueue(pieces[next++].slice());
      else {
        controller.close();
        controller.byobRequest?.respond(0); // a pending BYOB read ends with done (byte-stream rule)
      }
    },
  });
}

// (Jest's toEqual takes seconds on megabytes.)
const sameBytes = (a, b) => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

async function readAll(reader) {
  const parts = [];
  const buffers = new Set();
  const bufferSizes = new Set(); // read now: a recycled buffer is detached by the next read
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffers.add(value.buffer);
    bufferSizes.add(value.buffer.byteLength);
    parts.push(value.slice()); // valid only until the next read
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return { out, buffers, bufferSizes };
}

describe('openChunkReader', () => {
  // Pieces larger than the 1 MiB buffer too: they arrive in several reads.
  const pieces = [pattern(1000, 1), pattern(3 * 1024 * 1024 + 7, 2), pattern(1, 3), pattern(200000, 4)];
  const whole = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  pieces.reduce((at, p) => (whole.set(p, at), at + p.length), 0);

  test('a byte stream: every byte in order, through one recycled buffer', async () => {
    const reader = openChunkReader(streamOf(pieces, { bytes: true }));
    expect(reader.recycled).toBe(true);
    const { out, bufferSizes } = await readAll(reader);
    expect(sameBytes(out, whole)).toBe(true);
    // One buffer, transferred back and forth: every read's view is on a 1 MiB buffer.
    expect([...bufferSizes]).toEqual([1024 * 1024]);
  });

  test('a plain stream: the default reader, its chunks as they come', async () => {
    const reader = openChunkReader(streamOf(pieces, { bytes: false }));
    expect(reader.recycled).toBe(false);
    const { out, buffers } = await readAll(reader);
    expect(sameBytes(out, whole)).toBe(true);
    expect(buffers.size).toBe(pieces.length);
  });

  test('a Blob stream and cancel()', async () => {
    const reader = openChunkReader(new Blob([whole]).stream());
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(sameBytes(first.value, whole.subarray(0, first.value.length))).toBe(true);
    await reader.cancel();
    expect((await reader.read()).done).toBe(true);
  });

  test('an error of the stream rejects the read', async () => {
    const stream = new ReadableStream({
      type: 'bytes',
      pull(controller) {
        controller.error(new Error('connection reset'));
      },
    });
    await expect(openChunkReader(stream).read()).rejects.toThrow('connection reset');
  });
});
