// `vite build` of a staged copy of tests/vite/app, with the app's own
// vite.config.js; prints {outDir, warnings} as JSON on stdout.
//
//   node tests/vite/build-app.js PROJECT_DIR
//
// A separate process because Vite's bundler (Rolldown, a native addon)
// rejects options created inside Jest's VM context ("Value is none of these
// types `BindingPluginOptions`...").
import path from 'node:path';
import { build, createLogger } from 'vite';

const project = path.resolve(process.argv[2] ?? '');
const outDir = path.join(project, 'dist');
const warnings = [];
const logger = createLogger('warn');
logger.warn = (message) => warnings.push(message);
logger.warnOnce = (message) => warnings.push(message);

await build({
  root: project,
  configFile: path.join(project, 'vite.config.js'),
  customLogger: logger,
  logLevel: 'warn',
  build: { outDir, emptyOutDir: true },
});
process.stdout.write(JSON.stringify({ outDir, warnings }));
