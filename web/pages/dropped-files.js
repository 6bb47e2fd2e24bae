// The files of a drop: the files themselves, or, for a dropped folder (a
// Meta checkpoint: params.json, consolidated.NN.pth, tokenizer.model), the
// files in it. One level deep: a checkpoint folder has no subfolders.
export async function droppedFiles(dataTransfer) {
  const entries = Array.from(dataTransfer?.items ?? [], (item) => item.webkitGetAsEntry?.()).filter(Boolean);
  const folder = entries.length === 1 && entries[0].isDirectory ? entries[0] : null;
  if (!folder) return Array.from(dataTransfer?.files ?? []);
  const children = await readAllEntries(folder.createReader());
  return Promise.all(children.filter((e) => e.isFile).map((e) => new Promise((resolve, reject) => e.file(resolve, reject))));
}

/** readEntries() gives a folder's entries in batches until an empty one. */
async function readAllEntries(reader) {
  const all = [];
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

/** What to call a set of files in the status line. */
export function filesLabel(files) {
  return files.length === 1 ? files[0].name : `${files.length} files (${files.map((f) => f.name).join(', ')})`;
}

/** One file as itself, several as an array (a split GGUF or a checkpoint's files). */
export function modelInput(files) {
  return files.length === 1 ? files[0] : files;
}
