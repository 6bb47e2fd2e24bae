// The one error type the package throws for bad input, failed reads and
// cancellation. `code` says what went wrong, `offset` where in the file
// (a byte offset, or null when the error is not tied to a position).

/**
 * Codes from the wasm core, plus the package's own: IO (a source could not
 * be read), BAD_OPTION (an argument or option of a call is not valid),
 * TEMPLATE (a chat template failed or exceeded its budget), BUSY (the model
 * is in use by another call), DISPOSED (the model was disposed).
 */
export const ERROR_CODES = Object.freeze([
  'TRUNCATED', 'BAD_FORMAT', 'UNSUPPORTED', 'TOO_LARGE', 'REFUSED',
  'OUT_OF_MEMORY', 'ABORTED', 'INTERNAL', 'IO', 'BAD_OPTION', 'TEMPLATE', 'BUSY', 'DISPOSED',
]);

export class WasmLMError extends Error {
  /**
   * @param {string} code one of ERROR_CODES
   * @param {string} message
   * @param {{offset?: number|null, cause?: unknown}} [options]
   */
  constructor(code, message, { offset = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'WasmLMError';
    this.code = code;
    this.offset = offset;
  }

  /** The message without its "at byte N: " prefix. */
  get detail() {
    return this.message.replace(/^at byte \d+: /, '');
  }
}

/** Converts the `{code, offset, message}` object the bindings return. */
export function errorFromBinding({ code, offset, message }) {
  return new WasmLMError(code, message, { offset: offset ?? null });
}

/** Throws if a binding call returned an error object (they return null on success). */
export function throwIfBindingError(result) {
  if (result) throw errorFromBinding(result);
}

export function abortedError(signal) {
  return new WasmLMError('ABORTED', 'the operation was aborted', { cause: signal?.reason });
}

export function throwIfAborted(signal) {
  if (signal?.aborted) throw abortedError(signal);
}

export function disposedError() {
  return new WasmLMError('DISPOSED', 'the model was disposed');
}

/** A BAD_OPTION error naming the option and the value it got. */
export function badOption(name, expected, value) {
  return new WasmLMError('BAD_OPTION', `${name} must be ${expected} (got ${describeValue(value)})`);
}

function describeValue(value) {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null || typeof value !== 'object') return String(value);
  return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
}
