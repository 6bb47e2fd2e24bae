// Plain-text building blocks for CLI output.

export function formatCount(n) {
  return typeof n === 'bigint' || typeof n === 'number' ? n.toLocaleString('en-US') : String(n);
}

/** Rows of cells as aligned columns; `right` lists the right-aligned column indexes. */
export function table(rows, { indent = '  ', right = [] } = {}) {
  const widths = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, String(cell).length)));
  return rows.map((row) => indent + row
    .map((cell, i) => {
      const text = String(cell);
      if (i === row.length - 1 && !right.includes(i)) return text;
      return right.includes(i) ? text.padStart(widths[i]) : text.padEnd(widths[i]);
    })
    .join('  ')).join('\n');
}

/** 'feedForwardLength' -> 'feed forward length' */
export function words(camelCase) {
  return camelCase.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

export function quote(text, max = 60) {
  const shown = text.length > max ? `${text.slice(0, max)}…` : text;
  const quoted = JSON.stringify(shown);
  return text.length > max ? `${quoted} (${formatCount(text.length)} chars)` : quoted;
}
