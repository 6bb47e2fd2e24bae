// Emscripten 3.1.6 fetch()es the .wasm by file path when a global fetch
// exists (Node 18+), which fails; without fetch it reads the file with fs.
var fetch = undefined;
