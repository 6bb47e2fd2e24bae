// The README's code: every ```ts block type-checks with tsc --strict against
// the package's own types (web/src/index.d.ts as 'wasmlm'), as a user's
// TypeScript project would compile it; and `npm install` on this checkout
// leaves package-lock.json as it is.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './helpers/testdata.js';

const README = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const blocks = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

describe('the README', () => {
  test('has its API examples in TypeScript', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks.join('\n')).toMatch(/from 'wasmlm'/);
  });

  test('examples compile under tsc --strict', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-readme-'));
    try {
      const files = blocks.map((code, i) => {
        const file = path.join(dir, `example-${i}.ts`);
        fs.writeFileSync(file, `${code}\nexport {};\n`); // a module: top-level await
        return file;
      });
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
        compilerOptions: {
          strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler',
          lib: ['es2022', 'dom', 'dom.iterable'], types: [], skipLibCheck: false,
          paths: { wasmlm: [path.join(REPO_ROOT, 'web/src/index.d.ts')] },
        },
        files,
      }));
      const tsc = spawnSync(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir, encoding: 'utf8' });
      const shown = tsc.stdout + tsc.stderr;
      expect({ status: tsc.status, errors: shown }).toEqual({ status: 0, errors: '' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60000);
});

describe('package-lock.json', () => {
  test('npm install leaves it unchanged', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmlm-lock-'));
    try {
      for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(REPO_ROOT, f), path.join(dir, f));
      // From npm's cache (filled by setup's npm install): what a fresh clone's install resolves.
      execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--offline', '--no-audit', '--no-fund', '--loglevel=error'],
        { cwd: dir, encoding: 'utf8' });
      expect(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')).toBe(fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120000);
});
