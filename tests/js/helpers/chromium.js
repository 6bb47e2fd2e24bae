// Debian's Chromium for the browser tests and benchmarks (never a browser a
// tool downloads), how they launch it, and how tests behave without it:
// fail in CI (CI=true), skip with a visible message elsewhere.
import fs from 'node:fs';
import { describeWithTestdata } from './testdata.js';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** describe() that needs Chromium and ../shared/testdata. */
export function describeWithChromium(name, body) {
  if (fs.existsSync(CHROMIUM)) return describeWithTestdata(name, body);
  if (process.env.CI === 'true') {
    return describe(name, () => test('has Chromium', () => {
      throw new Error(`${CHROMIUM} is missing (scripts/setup.sh installs it)`);
    }));
  }
  console.warn(`SKIPPED "${name}": no ${CHROMIUM}`);
  return describe.skip(name, () => test.skip('needs Chromium', () => {}));
}
