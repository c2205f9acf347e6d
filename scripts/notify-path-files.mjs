// Lists the project's files on the notify path (docs/architecture.md, "The notify path, file by
// file"): the server's and the library's source files in which a function runs while one
// accepted notification goes from the request to the answer (V8 precise coverage, after a
// warm-up), then the files those import only for types. Run after `npm run build`:
//   node scripts/notify-path-files.mjs
/* global fetch, setTimeout */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

// dist/src/x.js -> src/x.ts; libs/process-notifications/dist/x.js -> libs/process-notifications/src/x.ts
function sourceOf(url) {
  if (!url.startsWith('file://')) return undefined;
  const file = relative(root, fileURLToPath(url));
  if (file.startsWith('..') || file.includes('node_modules')) return undefined;
  const candidates = [file.replace(/^dist\//, '').replace(/\.js$/, '.ts'), file.replace(/\/dist\//, '/src/').replace(/\.js$/, '.ts')];
  return candidates.find((candidate) => candidate !== file && existsSync(join(root, candidate)));
}

// The relative imports of a source file: those only for types (`import type`, or every name
// marked `type`) and those for values.
function importsOf(file) {
  const text = readFileSync(join(root, file), 'utf8');
  const found = { types: [], values: [] };
  for (const match of text.matchAll(/^import\s+(type\s+)?(\{[^}]*\}|[\w*\s,]+)\s+from\s+'([^']+)'/gm)) {
    const [, typeKeyword, names, specifier] = match;
    if (!specifier.startsWith('.')) continue;
    const named = names.startsWith('{')
      ? names
          .slice(1, -1)
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : [];
    const typeOnly = Boolean(typeKeyword) || (named.length > 0 && named.every((name) => name.startsWith('type ')));
    const target = relative(root, resolve(dirname(join(root, file)), specifier)).replace(/\.js$/, '.ts');
    (typeOnly ? found.types : found.values).push(target);
  }
  return found;
}

const dir = mkdtempSync(join(tmpdir(), 'pn-notify-path-'));
const port = await freePort();
const adminToken = 'notify-path-admin-token-0123456789abcdef';
Object.assign(process.env, {
  PORT: String(port),
  PN_DATABASE_URL: `sqlite:${join(dir, 'journal.db')}`,
  PN_ADMIN_TOKEN: adminToken,
  PN_LOG_LEVEL: 'silent',
  PN_CONSOLE: 'off',
});

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

// From the controller to the answer: the controller's method is wrapped (its route metadata
// copied over) so that the counts are taken when it is entered and when its answer is ready.
let beforeController;
let controllerWindow;
const { ProcessNotificationsController } = await import(join(root, 'dist/src/sessions/process-notifications.controller.js'));
const original = ProcessNotificationsController.prototype.notify;
async function measuredNotify(...args) {
  beforeController ??= (await inspector.post('Profiler.takePreciseCoverage')).result;
  const answer = await original.apply(this, args);
  controllerWindow ??= (await inspector.post('Profiler.takePreciseCoverage')).result;
  return answer;
}
for (const key of Reflect.getMetadataKeys(original)) Reflect.defineMetadata(key, Reflect.getMetadata(key, original), measuredNotify);
ProcessNotificationsController.prototype.notify = measuredNotify;
await import(join(root, 'dist/src/main.js'));

const base = `http://127.0.0.1:${port}`;
async function call(method, path, token, body) {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

const session = await call('POST', '/v1/sessions', adminToken, {});
const sessionId = session.body.session_id;
const loop = await call('POST', `/v1/sessions/${sessionId}/loops`, session.body.token, {});
const notification = () => ({
  command_id: randomUUID(),
  session_id: sessionId,
  loop_id: loop.body.loop_id,
  process_handle: 'proc-1',
  state: 'exited',
  reason: 'exited',
});
const notify = (body) => call('POST', `/v1/sessions/${sessionId}/process-completions`, session.body.token, body);
// Warm-up: every lazy path (first route match, first statement, first span) has run once.
for (let i = 0; i < 3; i++) await notify(notification());
await new Promise((done) => setTimeout(done, 200));
beforeController = undefined;
controllerWindow = undefined;

await inspector.post('Profiler.takePreciseCoverage'); // resets the counts
const answer = await notify(notification());
const { result } = await inspector.post('Profiler.takePreciseCoverage');
if (answer.status !== 202) throw new Error(`expected 202, got ${answer.status} ${JSON.stringify(answer.body)}`);

function report(title, coverage) {
  const ran = new Set();
  for (const script of coverage) {
    const source = sourceOf(script.url);
    if (source && script.functions.some((fn) => fn.ranges[0].count > 0)) ran.add(source);
  }
  // Imported for types by a file that ran, and for values by none of them.
  const types = new Set();
  const values = new Set();
  for (const file of ran) {
    const imports = importsOf(file);
    for (const target of imports.types) types.add(target);
    for (const target of imports.values) values.add(target);
  }
  const typesOnly = [...types].filter((file) => !ran.has(file) && !values.has(file));
  const list = [...ran].sort();
  const server = list.filter((file) => file.startsWith('src/')).length;
  console.log(`${title}: ${list.length} files ran (${server} server, ${list.length - server} library)`);
  for (const file of list) console.log(`  ${file}`);
  console.log(`  imported by those only for types (${typesOnly.length}):`);
  for (const file of typesOnly.sort()) console.log(`    ${file}`);
}
// The controller's window is inside the whole request's, so it is also counted there.
const whole = [...beforeController, ...controllerWindow, ...result];
report('From the controller to the answer', controllerWindow);
report('The whole request (hooks, guard, pipes, controller, answer)', whole);
rmSync(dir, { recursive: true, force: true });
process.exit(0);
