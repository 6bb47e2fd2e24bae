// Runs the kernel benchmark (Emscripten's Node-and-Worker build) in a
// classic Worker with the page's query as its arguments (?dir=...&arg=...),
// and hands each output line to window.benchLine, which chromium.js exposes.
const query = new URLSearchParams(location.search);
const worker = new Worker('bench-worker.js');
worker.onmessage = ({ data }) => window.benchLine(data);
worker.onerror = (event) => window.benchLine({ error: event.message || 'worker failed' });
worker.postMessage({ dir: query.get('dir'), name: query.get('name') ?? undefined, args: query.getAll('arg') });
