// Metadata values from the bindings are plain JS values, typed arrays, or
// string arrays packed as {packedStrings, offsets}; this unpacks the latter.

const utf8 = new TextDecoder('utf-8'); // non-fatal: bad bytes become U+FFFD

export function decodeMetadata(metadata) {
  return Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, decodeMetadataValue(value)]));
}

export function decodeMetadataValue(value) {
  if (Array.isArray(value)) return value.map(decodeMetadataValue);
  if (value && typeof value === 'object' && value.packedStrings) return unpackStrings(value);
  return value;
}

/** @param {{packedStrings: Uint8Array, offsets: Uint32Array}} packed */
export function unpackStrings({ packedStrings, offsets }) {
  const strings = new Array(Math.max(0, offsets.length - 1));
  for (let i = 0; i < strings.length; i++) {
    strings[i] = utf8.decode(packedStrings.subarray(offsets[i], offsets[i + 1]));
  }
  return strings;
}
