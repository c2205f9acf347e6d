// Sums the self time of a V8 CPU profile (`node --cpu-prof`) by layer, as a share of the busy
// time (idle excluded): which part of the stack a request's CPU goes to. A frame belongs to the
// first layer whose pattern matches its script URL (or, for V8's pseudo-frames, its name).
//   node scripts/cpu-profile-layers.mjs [--last SECONDS] PROFILE.cpuprofile [...]   one table per
//     profile; --last: only the profile's last SECONDS (the load, not the start-up)
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Layers in match order: the first matching pattern wins. */
const LAYERS = [
  ['idle', (url, name) => url === '' && name === '(idle)'],
  ['GC', (url, name) => url === '' && name === '(garbage collector)'],
  [
    'our hooks (request observer, owner forwarding, logging/metrics glue)',
    (url) => /\/src\/(http\/request-observer|cluster\/owner-forwarding|http\/route-table|logging\/|metrics\/)/.test(url),
  ],
  [
    'pino (+ sonic-boom)',
    (url) => /node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|pino-std-serializers)\//.test(url),
  ],
  ['prom-client', (url) => /node_modules\/(prom-client|tdigest|bintrees)\//.test(url)],
  [
    'validation (class-validator, class-transformer, ours)',
    (url) =>
      /node_modules\/(class-validator|class-transformer|validator|libphonenumber-js)\/|process-notifications\/(src|dist)\/validation\/|\/src\/http\/(closed-schema|read-json-body|strict-json|json-body)/.test(
        url,
      ),
  ],
  [
    'journal (persistence, TypeORM, better-sqlite3)',
    (url) => /node_modules\/(typeorm|better-sqlite3)\/|process-notifications\/(src|dist)\/(persistence|journal)\//.test(url),
  ],
  ['CQRS / rxjs', (url) => /node_modules\/(@nestjs\/cqrs|rxjs)\//.test(url)],
  ['Nest core (@nestjs/core, common, platform-fastify)', (url) => /node_modules\/@nestjs\/(core|common|platform-fastify)\//.test(url)],
  [
    'Fastify (fastify, find-my-way, avvio, light-my-request...)',
    (url) =>
      /node_modules\/(fastify|@fastify\/[^/]+|find-my-way|avvio|fast-json-stringify|light-my-request|middie|toad-cache|process-warning|abstract-logging|rfdc|secure-json-parse|fast-querystring|ret|safe-regex2)\//.test(
        url,
      ),
  ],
  ['OpenTelemetry API', (url) => /node_modules\/@opentelemetry\//.test(url)],
  ['our library and server (other files)', (url) => /\/(libs\/process-notifications\/dist|dist\/src|src)\//.test(url)],
  ['other node_modules', (url) => /node_modules\//.test(url)],
  ['Node core (http, net, streams, timers)', (url) => url.startsWith('node:')],
  ['V8 (program: compiling, runtime outside any function)', (url, name) => url === '' && name === '(program)'],
  ['native / V8 builtins called from no known layer', () => true],
];

const lastIndex = process.argv.indexOf('--last');
const lastMicros = lastIndex > 0 ? Number(process.argv[lastIndex + 1]) * 1e6 : Infinity;
const files = process.argv.slice(2).filter((_, i) => lastIndex < 0 || (i !== lastIndex - 2 && i !== lastIndex - 1));

function layersOf(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const from = profile.endTime - lastMicros;
  // A frame without a script (a builtin, a native addon's function) counts for its caller's layer.
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const layerOf = new Map();
  const layerOfNode = (node) => {
    if (layerOf.has(node.id)) return layerOf.get(node.id);
    const { url, functionName } = node.callFrame;
    const pseudo = url === '' && /^\(.*\)$/.test(functionName);
    const parent = parentOf.get(node.id);
    const layer = url === '' && !pseudo && parent ? layerOfNode(parent) : LAYERS.find(([, match]) => match(url, functionName))[0];
    layerOf.set(node.id, layer);
    return layer;
  };
  for (const node of profile.nodes) layerOfNode(node);
  const micros = new Map(LAYERS.map(([layer]) => [layer, 0]));
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from) return;
    const layer = layerOf.get(id);
    micros.set(layer, micros.get(layer) + (profile.timeDeltas[i] ?? 0));
  });
  return micros;
}

for (const file of files) {
  const micros = layersOf(file);
  const busy = [...micros].filter(([layer]) => layer !== 'idle').reduce((sum, [, us]) => sum + us, 0);
  console.log(`\n${basename(file)}: ${(busy / 1e6).toFixed(2)} s busy, ${(micros.get('idle') / 1e6).toFixed(2)} s idle\n`);
  console.log('| layer | self time, s | share of busy |');
  console.log('|---|---:|---:|');
  for (const [layer, us] of [...micros].filter(([layer]) => layer !== 'idle').sort((a, b) => b[1] - a[1])) {
    console.log(`| ${layer} | ${(us / 1e6).toFixed(2)} | ${((100 * us) / busy).toFixed(1)} % |`);
  }
}
