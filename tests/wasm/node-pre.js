// Emscripten 3.1.6 fetch()es the .wasm by file path when a global fetch
// exists (Node 18+), which fails; without fetch it reads the file with fs.
// In a browser Worker (the kernel benchmark in Chromium) fetch stays.
var fetch = typeof process === 'object' && process.versions && process.versions.node ? undefined : globalThis.fetch;
