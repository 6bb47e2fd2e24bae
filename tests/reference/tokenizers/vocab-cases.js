// llama.cpp's test-tokenizer-0 file formats: an .inp file holds the cases,
// each followed by "\n__ggml_vocab_test__\n"; an .out file one line per case,
// each id preceded by a space.

const SEPARATOR = '\n__ggml_vocab_test__\n';

export function parseVocabInp(text) {
  const cases = text.split(SEPARATOR);
  if (cases.length && cases[cases.length - 1] === '') cases.pop();
  return cases;
}

export function formatVocabOut(idLists) {
  return idLists.map((ids) => ids.map((id) => ` ${id}`).join('')).join('\n') + '\n';
}
