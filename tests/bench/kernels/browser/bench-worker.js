// The benchmark's main() runs here, off the page's thread (it blocks while
// its pthreads work). Output lines and the exit code go back to the page.
self.onmessage = ({ data: { dir, name = 'wasmlm_bench_kernels', args } }) => {
  const script = `${dir}/${name}.js`;
  self.Module = {
    arguments: args,
    mainScriptUrlOrBlob: script,  // what the pthread workers load
    locateFile: (file) => `${dir}/${file}`,
    print: (line) => postMessage({ line }),
    printErr: (line) => postMessage({ line, stderr: true }),
    onExit: (code) => postMessage({ exit: code }),
    onAbort: (what) => postMessage({ error: `aborted: ${what}` }),
  };
  importScripts(script);
};
