// A small "Copy" button: puts a text on the clipboard and says so, on the
// button ("Copied") and in one shared live region for screen readers.
// Its label is CSS-generated, so a table cell's text stays the value alone.

const FEEDBACK_MS = 1500;

let announcer = null;
function announce(text) {
  if (!announcer) {
    announcer = Object.assign(document.createElement('p'), { id: 'copy-status', className: 'visually-hidden' });
    announcer.setAttribute('role', 'status');
    document.body.append(announcer);
  }
  announcer.textContent = text;
}

/**
 * @param {string} what what is copied, for the accessible name ("the value of general.name")
 * @param {() => string} text called at the click: the text to copy
 */
export function copyButton(what, text) {
  const button = document.createElement('button');
  Object.assign(button, { type: 'button', className: 'copy-value', title: `Copy ${what}` });
  button.setAttribute('aria-label', `Copy ${what}`);
  let timer = 0;
  button.addEventListener('click', async (event) => {
    event.stopPropagation(); // a tensor row's click opens its histogram
    let state = 'copied';
    try {
      await navigator.clipboard.writeText(text());
    } catch {
      state = 'failed';
    }
    button.classList.remove('copied', 'failed');
    button.classList.add(state);
    announce(state === 'copied' ? `Copied ${what}` : `Could not copy ${what}`);
    clearTimeout(timer);
    timer = setTimeout(() => button.classList.remove('copied', 'failed'), FEEDBACK_MS);
  });
  // Enter or Space on the button is the button's, not the row's.
  button.addEventListener('keydown', (event) => event.stopPropagation());
  return button;
}
