// The demo's chat: a conversation of message bubbles, sent whole (system
// prompt first when set) with lm.chat() on every turn. What the log shows is
// exactly the history sent. Model text goes into the page only as textContent.
import { samplingOptions, speedLine } from './sampling.js';

const $ = (selector) => document.querySelector(selector);
const WHO = { system: 'System', user: 'You', assistant: 'Model' };

export function createChatPanel({ model, onError }) {
  let messages = [];     // {role, content, meta?} without the system prompt
  let generating = null; // AbortController of the reply being written
  const log = $('#chat-log');
  const input = $('#chat-input');

  /** The messages lm.chat() gets: the system prompt (when set), then the conversation. */
  function history() {
    const system = $('#system-prompt').value.trim();
    const sent = messages.map(({ role, content }) => ({ role, content }));
    return system ? [{ role: 'system', content: system }, ...sent] : sent;
  }

  function bubble(message) {
    const item = document.createElement('li');
    item.className = `message ${message.role}`;
    const who = document.createElement('span');
    who.className = 'who';
    who.textContent = WHO[message.role] ?? message.role;
    const text = document.createElement('div');
    text.className = 'text';
    text.textContent = message.content;
    item.append(who, text);
    if (message.role === 'assistant') {
      const meta = document.createElement('div');
      meta.className = 'meta';
      const speed = document.createElement('span');
      speed.className = 'speed';
      speed.textContent = message.meta ?? '';
      const copy = document.createElement('button');
      copy.type = 'button';
      copy.className = 'copy';
      copy.textContent = 'Copy';
      copy.setAttribute('aria-label', 'Copy this reply');
      copy.addEventListener('click', () => copyText(message.content, copy));
      meta.append(speed, copy);
      item.append(meta);
    }
    message.view = { text, speed: item.querySelector('.speed') };
    return item;
  }

  function render() {
    const system = $('#system-prompt').value.trim();
    log.replaceChildren(...(system ? [bubble({ role: 'system', content: system })] : []), ...messages.map(bubble));
    updateButtons();
  }

  function updateButtons() {
    const busy = generating !== null;
    log.setAttribute('aria-busy', String(busy)); // screen readers read the reply once, not every piece
    $('#send').disabled = busy;
    $('#stop-chat').disabled = !busy;
    $('#regenerate').disabled = busy || messages.at(-1)?.role !== 'assistant';
    $('#clear-chat').disabled = busy || messages.length === 0;
  }

  async function reply() {
    const lm = model();
    if (!lm) return;
    const controller = new AbortController();
    generating = controller;
    const sent = history();
    const message = { role: 'assistant', content: '', meta: 'writing…' };
    messages.push(message);
    render();
    const { text, speed } = message.view;
    const started = performance.now();
    let tokens = 0;
    try {
      const stream = lm.chat(sent, { ...samplingOptions(), signal: controller.signal });
      for (;;) {
        const { value, done } = await stream.next();
        if (generating !== controller) return; // cleared or another model: this reply is gone
        if (done) {
          message.meta = speedLine(value);
          break;
        }
        message.content += value.text;
        text.textContent = message.content;
        tokens += value.tokens.length;
        message.meta = `${tokens} tokens · ${(tokens / ((performance.now() - started) / 1000)).toFixed(1)} tokens/s`;
        speed.textContent = message.meta;
        log.lastElementChild?.scrollIntoView({ block: 'end' });
      }
    } catch (error) {
      if (generating !== controller) return;
      message.meta = error.code === 'ABORTED' ? `${message.meta} · stopped` : `error: ${error.message}`;
      if (error.code !== 'ABORTED') onError(error);
    }
    speed.textContent = message.meta;
    generating = null;
    updateButtons();
  }

  function send() {
    const content = input.value;
    if (generating || !content.trim() || !model()) return;
    messages.push({ role: 'user', content });
    input.value = '';
    input.focus();
    reply();
  }

  $('#chat-form').addEventListener('submit', (event) => {
    event.preventDefault();
    send();
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });
  $('#stop-chat').addEventListener('click', () => generating?.abort());
  $('#regenerate').addEventListener('click', () => {
    if (generating || messages.at(-1)?.role !== 'assistant') return;
    messages.pop();
    reply();
  });
  $('#clear-chat').addEventListener('click', () => {
    messages = [];
    render();
  });
  $('#system-prompt').addEventListener('input', () => {
    if (!generating) render();
  });

  return {
    /** A new model (or none): the conversation starts over. */
    reset(info) {
      generating?.abort();
      generating = null;
      messages = [];
      $('#chat-template').textContent = info?.chatTemplate ?? '';
      render();
    },
    /** The messages the next reply would be written for (what the log shows). */
    history,
  };
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Copy failed';
  }
  setTimeout(() => { button.textContent = 'Copy'; }, 1500);
}
