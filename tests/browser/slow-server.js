// A server that trickles one file (no Range support, CORS open) so a test can
// act while a page is still loading it. Records whether the reader hung up.
import fs from 'node:fs';
import http from 'node:http';

export async function startSlowServer(file, { chunk = 64 * 1024, everyMs = 40 } = {}) {
  const requests = []; // {method, finished, closedEarly}
  const server = http.createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    if (req.method === 'OPTIONS') return res.end();
    const bytes = fs.readFileSync(file);
    res.writeHead(200, { 'Content-Length': bytes.length, 'Accept-Ranges': 'none', 'Content-Type': 'application/octet-stream' });
    const record = { method: req.method, finished: false, closedEarly: false };
    requests.push(record);
    if (req.method === 'HEAD') return res.end();
    let at = 0;
    const timer = setInterval(() => {
      res.write(bytes.subarray(at, at + chunk));
      at += chunk;
      if (at >= bytes.length) {
        clearInterval(timer);
        record.finished = true;
        res.end();
      }
    }, everyMs);
    res.on('close', () => {
      clearInterval(timer);
      if (!record.finished) record.closedEarly = true;
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
