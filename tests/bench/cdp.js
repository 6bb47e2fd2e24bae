// A raw Chrome DevTools Protocol connection to a Chromium started with
// --remote-debugging-port=0, shared by the benchmarks that reach into its
// workers (load/run.js: their JS heaps; llama/profile.js: their CPU profiles).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const MiB = 2 ** 20;

/**
 * A raw CDP connection to the browser (its --remote-debugging-port, read
 * from DevToolsActivePort in the profile), for what playwright's CDPSession
 * cannot reach: dedicated workers (flattened sessions), the pthreads' too.
 */
export class Cdp {
  static async connect(profile) {
    const file = path.join(profile, 'DevToolsActivePort');
    for (let i = 0; i < 50 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
    const [port, wsPath] = fs.readFileSync(file, 'utf8').trim().split('\n');
    // playwright-core bundles the ws package (Node 20 has no WebSocket)
    const { ws: WebSocket } = createRequire(import.meta.url)('playwright-core/lib/utilsBundle');
    const self = new Cdp();
    self.socket = new WebSocket(`ws://127.0.0.1:${port}${wsPath}`, { perMessageDeflate: false, maxPayload: 256 * MiB });
    await new Promise((resolve, reject) => { self.socket.once('open', resolve); self.socket.once('error', reject); });
    self.nextId = 1;
    self.pending = new Map();
    self.sessions = new Map(); // sessionId -> {type, url}
    self.socket.on('message', (data) => self.#receive(JSON.parse(String(data))));
    // auto-attach (flattened) to every page and, through them, every worker
    await self.send('Target.setDiscoverTargets', { discover: true });
    return self;
  }

  send(method, params = {}, sessionId, timeoutMs = 2000) {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    // a session that goes away mid-call may never answer: give up after timeoutMs
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.pending.delete(id); reject(new Error(`${method}: no answer`)); }, timeoutMs);
      this.pending.set(id, { resolve: (v) => { clearTimeout(timer); resolve(v); }, reject: (e) => { clearTimeout(timer); reject(e); } });
    });
  }

  #receive(message) {
    if (message.id !== undefined) {
      const p = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) p?.reject(new Error(message.error.message));
      else p?.resolve(message.result);
      return;
    }
    if (message.method === 'Target.attachedToTarget') {
      const { sessionId, targetInfo } = message.params;
      this.sessions.set(sessionId, { type: targetInfo.type, url: targetInfo.url, targetId: targetInfo.targetId });
      // workers the worker starts (the pthreads) too; resume it if it waits for us
      this.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, sessionId).catch(() => {});
      this.send('Runtime.runIfWaitingForDebugger', {}, sessionId).catch(() => {});
    } else if (message.method === 'Target.detachedFromTarget') {
      this.sessions.delete(message.params.sessionId);
    }
  }

  /** Attaches to the page target whose URL is `url` (its workers follow by auto-attach). */
  async attachPage(url) {
    const { targetInfos } = await this.send('Target.getTargets');
    const target = targetInfos.find((t) => t.type === 'page' && t.url === url);
    if (!target) throw new Error(`no page target for ${url}`);
    const { sessionId } = await this.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
    this.sessions.set(sessionId, { type: 'page', url, targetId: target.targetId });
    await this.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, sessionId);
    return sessionId;
  }

  /** The sessions of the attached dedicated workers. */
  workerSessions() {
    return [...this.sessions].filter(([, s]) => s.type === 'worker').map(([sessionId]) => sessionId);
  }

  /** usedSize summed over every attached page and worker (bytes), and how many answered. */
  async heapUsed() {
    const results = await Promise.all([...this.sessions.keys()].map((sessionId) => this.send('Runtime.getHeapUsage', {}, sessionId)
      .then((r) => r.usedSize, () => null)));
    const ok = results.filter((r) => r !== null);
    return { bytes: ok.reduce((a, b) => a + b, 0), targets: ok.length };
  }

  async detachAll() {
    for (const sessionId of [...this.sessions.keys()]) {
      await this.send('Target.detachFromTarget', { sessionId }).catch(() => {});
    }
    this.sessions.clear();
  }

  close() {
    this.socket.close();
  }
}
