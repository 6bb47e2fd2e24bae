// A consumer app bundled by Vite: imports the package by its name, inspects
// a model, loads it in its Worker and completes a prompt greedily. The model
// URL comes from ?model=...; the outcome lands on window.__result (a promise)
// and in #result.
import { inspect, loadModel } from 'wasmlm';

async function run(model) {
  if (!model) throw new Error('no ?model= in the page URL');
  const directory = await inspect(new URL(model, location.href).href);
  const lm = await loadModel(model, { threads: 'auto' });
  try {
    const completion = await lm.complete('Once upon a time', { temperature: 0, maxTokens: 32 });
    return {
      ok: true,
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
      tensors: directory.tensors.length,
      build: lm.info.build,
      threads: lm.info.threads,
      text: completion.text,
    };
  } finally {
    await lm.dispose();
  }
}

window.__result = run(new URLSearchParams(location.search).get('model')).catch((error) => ({
  ok: false,
  error: `${error?.code ?? error?.name}: ${error?.message ?? error}`,
}));
window.__result.then((result) => {
  document.querySelector('#result').textContent = JSON.stringify(result, null, 2);
});
