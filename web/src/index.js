export { inspect } from './inspect.js';
export { tensorStats } from './tensor-stats.js';
export { openModel } from './model/open-model.js';
export { WasmLMError, ERROR_CODES } from './errors.js';
export { loadWasmModule, releaseWasmModules, chooseVariant } from './wasm/load-module.js';
export { openByteSource } from './sources/byte-source.js';
export { readModelDirectory } from './parse/read-model-directory.js';
export { decodeMetadata, unpackStrings } from './parse/metadata-values.js';
export { summarizeModel, parameterCount, rwkvVersion } from './model-summary.js';
