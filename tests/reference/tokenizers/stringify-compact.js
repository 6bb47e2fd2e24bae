// JSON with each list of ids on one line: small diffs, readable files.
export function stringifyCompact(value) {
  return JSON.stringify(value, (key, v) => (Array.isArray(v) && v.every(Number.isInteger) ? JSON.stringify(v) : v), 1)
    .replace(/"(\[[\d,]*\])"/g, '$1') + '\n';
}
