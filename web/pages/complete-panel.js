// The demo's Complete mode: the prompt, then the model's continuation streamed after it.
import { samplingOptions, speedLine } from './sampling.js';

const $ = (selector) => document.querySelector(selector);

export function createCompletePanel({ model, onError }) {
  let generating = null; // AbortController of the completion in progress

  async function complete() {
    const lm = model();
    if (!lm || generating) return;
    const prompt = $('#prompt').value;
    const controller = new AbortController();
    generating = controller;
    $('#generate').disabled = true;
    $('#stop-generation').disabled = false;
    const output = $('#output');
    output.textContent = prompt;
    output.setAttribute('aria-busy', 'true'); // screen readers read the text once, not every piece
    const started = performance.now();
    let tokens = 0;
    try {
      const stream = lm.generate(prompt, { ...samplingOptions(), signal: controller.signal });
      for (;;) {
        const { value, done } = await stream.next();
        if (done) {
          $('#speed').textContent = speedLine(value);
          break;
        }
        output.textContent += value.text;
        tokens += value.tokens.length;
        $('#speed').textContent = `${tokens} tokens · ${(tokens / ((performance.now() - started) / 1000)).toFixed(1)} tokens/s`;
      }
    } catch (error) {
      if (error.code !== 'ABORTED') onError(error);
      else $('#speed').textContent += ' · stopped';
    } finally {
      if (generating === controller) generating = null;
      output.setAttribute('aria-busy', 'false');
      $('#generate').disabled = false;
      $('#stop-generation').disabled = true;
    }
  }

  $('#generate').addEventListener('click', complete);
  $('#stop-generation').addEventListener('click', () => generating?.abort());

  return {
    /** A new model (or none): stop, and start from an empty output. */
    reset() {
      generating?.abort();
      $('#output').textContent = '';
      $('#speed').textContent = '';
    },
  };
}
