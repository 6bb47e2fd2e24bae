/** JSON.stringify replacer: typed arrays become arrays, BigInts strings. */
export function jsonReplacer(_key, value) {
  if (typeof value === 'bigint') return value.toString();
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value);
  return value;
}

export function toJson(value, indent = 2) {
  return JSON.stringify(value, jsonReplacer, indent);
}
