// Node-only helpers for the Emscripten 3.1.6 glue (imported lazily so that
// browsers never see node: modules).
//
// The EXPORT_ES6 glue still refers to CommonJS `require` and `__dirname` at
// load time, and it installs process-wide 'uncaughtException' and
// 'unhandledRejection' handlers that rethrow: a library must not change how
// its host process treats errors, so those are removed again after loading.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const GLUE_PROCESS_EVENTS = ['uncaughtException', 'unhandledRejection'];

export function installGlobals(distUrl) {
  globalThis.require ??= createRequire(new URL('package.json', distUrl));
  globalThis.__dirname ??= fileURLToPath(distUrl);
}

export function readWasmBytes(url) {
  return readFile(url);
}

/** Runs `load` and removes the process listeners it added. */
export async function withoutGlueProcessHandlers(load) {
  const before = new Map(GLUE_PROCESS_EVENTS.map((e) => [e, new Set(process.listeners(e))]));
  try {
    return await load();
  } finally {
    for (const [event, kept] of before) {
      for (const listener of process.listeners(event)) {
        if (!kept.has(listener)) process.removeListener(event, listener);
      }
    }
  }
}

/**
 * Idle pthreads must not keep Node running: a process whose work is done
 * exits without dispose(). (Calls into the pthreads build block the main
 * thread until the threads finish, so nothing is cut short.)
 */
export function unrefPthreadWorkers(pthread) {
  const unref = (worker) => worker?.unref?.();
  for (const worker of [...pthread.unusedWorkers, ...pthread.runningWorkers]) unref(worker);
  const allocate = pthread.allocateUnusedWorker;
  pthread.allocateUnusedWorker = function allocateUnrefWorker(...args) {
    const result = allocate.apply(this, args);
    unref(pthread.unusedWorkers[pthread.unusedWorkers.length - 1]);
    return result;
  };
}
