#!/usr/bin/env node
// Static HTTP server for development and the browser tests: serves the repo
// root with the headers cross-origin isolation needs (the pthreads build uses
// SharedArrayBuffer), HTTP Range support (random-access model reading), and
// ../shared/testdata under /testdata/ when it exists (read-only).
//
//   node scripts/serve.js [--port N] [--no-range]      (PORT env sets the default port)
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO_ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

/**
 * @param {object} [options]
 * @param {number} [options.port] 0 picks a free port
 * @param {string} [options.host]
 * @param {string} [options.root] directory served at /
 * @param {string|null} [options.testdata] directory served at /testdata/ (if it exists)
 * @param {boolean} [options.range] honour Range requests (false: always 200 with the whole body)
 * @param {boolean} [options.isolation] send COOP/COEP (cross-origin isolation)
 * @param {boolean} [options.log] log each request to stdout
 * @param {(entry: {method: string, url: string, range: string|undefined, status: number, dropped?: boolean}) => void} [options.onResponse]
 *   called after each response (tests use it to see how files were read); a
 *   response cut by dropAfter is reported with dropped: true
 * @param {(request: {url: string, range: string|undefined}) => number|null|undefined} [options.dropAfter]
 *   test hook: for each file response, after how many body bytes to drop the
 *   connection (null/undefined: send it all)
 * @returns {Promise<{server: http.Server, port: number, url: string, close(): Promise<void>}>}
 */
export function startServer({
  port = 8080,
  host = '127.0.0.1',
  root = REPO_ROOT,
  testdata = path.resolve(root, '..', 'shared', 'testdata'),
  range = true,
  isolation = true,
  log = false,
  onResponse,
  dropAfter,
} = {}) {
  const mounts = [];
  if (testdata && fs.existsSync(testdata)) mounts.push({ prefix: '/testdata/', dir: fs.realpathSync(testdata) });
  mounts.push({ prefix: '/', dir: fs.realpathSync(root) });
  const options = { mounts, range, isolation, dropAfter };

  const server = http.createServer((req, res) => {
    handle(req, res, options).catch((error) => {
      if (!res.headersSent) send(res, 500, String(error));
      else res.destroy();
    });
    res.on('finish', () => {
      if (log) console.log(`${req.method} ${req.url} ${res.statusCode}`);
      onResponse?.({ method: req.method, url: req.url, range: req.headers.range, status: res.statusCode });
    });
    res.on('close', () => {
      if (res.dropped) onResponse?.({ method: req.method, url: req.url, range: req.headers.range, status: res.statusCode, dropped: true });
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({
        server,
        port: actual,
        url: `http://${host}:${actual}`,
        testdata: mounts.length > 1,
        close: () => new Promise((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
      });
    });
  });
}

async function handle(req, res, { mounts, range, isolation, dropAfter }) {
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  if (isolation) {
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
  }
  res.setHeader('Cache-Control', 'no-cache');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(res, 405, 'method not allowed');
  }
  let pathname;
  try {
    pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  } catch {
    return send(res, 400, 'bad path');
  }
  if (pathname === '/') return redirect(res, '/web/pages/demo.html');
  if (pathname === '/testdata') return redirect(res, '/testdata/');

  const file = await resolveFile(pathname, mounts);
  if (!file) return send(res, 404, 'not found');
  if (file.stat.isDirectory()) {
    if (!pathname.endsWith('/')) return redirect(res, `${pathname}/`);
    const index = await resolveFile(`${pathname}index.html`, mounts);
    if (!index?.stat.isFile()) return send(res, 404, 'not found');
    return sendFile(req, res, index, range);
  }
  if (!file.stat.isFile()) return send(res, 404, 'not found');
  const drop = dropAfter?.({ url: req.url, range: req.headers.range });
  return sendFile(req, res, file, range, drop);
}

/** Maps a URL path to a file inside a mount; null if missing or outside it. */
async function resolveFile(pathname, mounts) {
  if (pathname.includes('\0') || pathname.split('/').some((part) => part.startsWith('.') && part !== '')) {
    return null; // no dotfiles (.git) and no '..'
  }
  const mount = mounts.find((m) => pathname.startsWith(m.prefix));
  const candidate = path.join(mount.dir, pathname.slice(mount.prefix.length));
  try {
    const real = await fs.promises.realpath(candidate);
    if (real !== mount.dir && !real.startsWith(mount.dir + path.sep)) return null; // a symlink out
    return { path: real, stat: await fs.promises.stat(real) };
  } catch {
    return null;
  }
}

function sendFile(req, res, file, rangeEnabled, dropAfter = null) {
  const size = file.stat.size;
  res.setHeader('Content-Type', MIME_TYPES[path.extname(file.path).toLowerCase()] ?? 'application/octet-stream');
  res.setHeader('Last-Modified', file.stat.mtime.toUTCString());
  res.setHeader('Accept-Ranges', rangeEnabled ? 'bytes' : 'none');
  let start = 0;
  let end = size - 1;
  const range = rangeEnabled && req.headers.range ? parseRange(req.headers.range, size) : null;
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${size}`);
    return send(res, 416, 'range not satisfiable');
  }
  if (range) {
    ({ start, end } = range);
    res.statusCode = 206;
    res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
  } else {
    res.statusCode = 200;
  }
  res.setHeader('Content-Length', Math.max(0, end - start + 1));
  if (req.method === 'HEAD' || end < start) return res.end();
  if (dropAfter != null && dropAfter <= end - start) return sendThenDrop(res, file.path, start, start + dropAfter);
  pipeline(fs.createReadStream(file.path, { start, end }), res, () => {}); // errors: the client went away
}

/** Test hook: sends bytes [start, stop) of a file, then destroys the connection mid-body. */
function sendThenDrop(res, filePath, start, stop) {
  res.dropped = true;
  const drop = () => res.destroy();
  if (stop <= start) {
    res.flushHeaders();
    return setTimeout(drop, 10);
  }
  const stream = fs.createReadStream(filePath, { start, end: stop - 1 });
  stream.on('error', drop);
  stream.on('data', (chunk) => {
    if (!res.write(chunk)) {
      stream.pause();
      res.once('drain', () => stream.resume());
    }
  });
  stream.on('end', () => setTimeout(drop, 10));
}

/**
 * One `bytes=` range -> {start, end} (inclusive), 'unsatisfiable', or null
 * to ignore the header (malformed or several ranges: answer 200).
 */
export function parseRange(header, size) {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === '' ? size - 1 : Number(match[2]);
  if (start >= size) return 'unsatisfiable';
  if (last < start) return null;
  return { start, end: Math.min(last, size - 1) };
}

function send(res, status, text) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(`${text}\n`);
}

function redirect(res, location) {
  res.statusCode = 302;
  res.setHeader('Location', location);
  res.end();
}

async function cli() {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, 'no-range': { type: 'boolean' }, quiet: { type: 'boolean' } },
  });
  const port = Number(values.port ?? process.env.PORT ?? 8080);
  const { url, testdata } = await startServer({ port, range: !values['no-range'], log: !values.quiet });
  console.log(`wasmlm: serving ${REPO_ROOT} at ${url}/ (open ${url}/ for the demo, ${url}/web/pages/index.html for the model viewer)`);
  console.log(testdata ? 'wasmlm: ../shared/testdata is served at /testdata/' : 'wasmlm: no ../shared/testdata to serve');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().catch((error) => {
    console.error(`wasmlm: ${error.message}`);
    process.exit(1);
  });
}
