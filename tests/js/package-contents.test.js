// What the npm tarball holds: the license the package declares, the notices
// of what it bundles, the runtime files, and nothing of the tests.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './helpers/testdata.js';

describe('the npm package', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8' }));
  const files = packed.files.map((f) => f.path);

  test('ships LICENSE with the license package.json declares', () => {
    expect(pkg.license).toBe('MIT');
    expect(files).toContain('LICENSE');
    const license = fs.readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    expect(license).toContain('Permission is hereby granted, free of charge');
  });

  test('ships the notices of every runtime dependency and what web/dist bundles', () => {
    expect(files).toContain('THIRD_PARTY_NOTICES.md');
    const notices = fs.readFileSync(path.join(REPO_ROOT, 'THIRD_PARTY_NOTICES.md'), 'utf8');
    for (const [name, range] of Object.entries(pkg.dependencies)) {
      const installed = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
      expect(notices).toContain(`${name}](`);
      expect(notices).toContain(`| ${installed} |`); // the notices name the version the lock file installs
      expect(range).toMatch(/^\^?\d/);
    }
    for (const bundled of ['nlohmann/json', 'Emscripten', 'musl', 'LLVM']) expect(notices).toContain(bundled);
    if (files.includes('web/dist/vendor/jinja.mjs')) expect(notices).toContain('web/dist/vendor/jinja.mjs');
  });

  test('holds the runtime (sources, CLI, both wasm builds) and no tests', () => {
    for (const f of ['web/src/index.js', 'web/src/index.d.ts', 'web/bin/wasmlm.js', 'web/dist/wasmlm-st.wasm', 'web/dist/wasmlm-mt.wasm']) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => f.startsWith('tests/') || f.startsWith('native/'))).toEqual([]);
  });
});
