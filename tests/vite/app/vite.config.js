// The app's Vite config: wasmlm itself needs nothing here (Vite finds its
// Worker, wasm glue and .wasm files). Keep `worker.format` at its default
// ('iife'): the pthreads build starts its helper threads as classic Workers.
// The headers make `vite` and `vite preview` serve the page cross-origin
// isolated, which loadModel() needs for the pthreads build; a production
// server must send the same two headers.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default {
  server: { headers: crossOriginIsolation },
  preview: { headers: crossOriginIsolation },
};
