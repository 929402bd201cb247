// Where the time goes: reads a V8 CPU profile (.cpuprofile, node --cpu-prof) of `signet serve` or of
// the floor and attributes the main thread's CPU time to buckets by who spent it (parsing,
// validation, authorization, the stamp check, rendering, logging, the pg client, HTTP, GC, …), in ms
// per activity and % of the busy time. bench/run.ts --profile DIR prints this table for each
// scenario, Signet beside its floor; on its own, for any profile:
//   node --import tsx bench/profileBuckets.ts FILE.cpuprofile [FILE2 …] [--activities N] [--top 5]
// Only the samples inside the measured rounds count when FILE.windows.json is beside the profile
// (bench/run.ts writes it: the rounds' start and end on the machine's monotonic clock, which V8's
// profile timestamps use too, and the activities answered in them); otherwise the whole profile does.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

/** A .cpuprofile as V8 writes it (the fields read here). */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A measured stretch of the profile: microseconds on the monotonic clock, and the activities answered in it. */
export interface Window {
  startUs: number;
  endUs: number;
  activities: number;
}

export const BUCKETS = [
  'parsing',
  'validation',
  'authorization',
  'stamp verification',
  'activity logic',
  'SQL building',
  'rendering',
  'logging',
  'metrics',
  'pg client',
  'HTTP',
  'GC',
  'V8 (program)',
  'other',
] as const;
export type Bucket = (typeof BUCKETS)[number];

/** What each bucket holds, for the table's legend and docs/benchmarks.md. */
export const BUCKET_MEANINGS: Record<Bucket, string> = {
  parsing: 'the body as JSON (UTF-8 decoding, JSON.parse, the document checks: src/wire/jsonDocument.ts), the raw body',
  validation: 'zod (the envelope, the parameters) and the checks it calls (src/contracts/, the handlers\' refinements)',
  authorization: 'src/policy/, src/activities/lifecycle/authorization.ts and decision.ts',
  'stamp verification': 'src/auth/ (stamp header, credential lookup), src/keys/, node:crypto outside other buckets',
  'activity logic': 'the rest of src/activities/ (engine, handlers\' plans, webhook events) and src/wire/',
  'SQL building': 'src/store/: composing statements and reading their rows',
  rendering: 'src/activities/wire/render.ts and activitySchema.ts, JSON.stringify they call',
  logging: 'pino, its serializers, the batched output (src/cli/logOutput.ts)',
  metrics: 'prom-client and src/http/metrics.ts',
  'pg client': 'node_modules/pg*: serializing parameters, parsing answers, socket writes it makes',
  HTTP: 'Fastify, find-my-way, Node\'s http and net, Signet\'s routes and hooks (src/http/), socket writes of answers',
  GC: 'V8\'s garbage collector on the main thread',
  'V8 (program)': 'V8 and Node native work no JavaScript frame is charged with (compilation, runtime calls)',
  other: 'anything else (module loading, timers, the microtask loop)',
};

/** Frames that charge no one themselves: V8's builtins and native functions (no URL), Node's own modules. */
const passThrough = (url: string) => url === '' || url.startsWith('node:');

/** The floor's one handler (bench/floor.ts): what it calls is charged by Node's module (crypto, net), the rest is HTTP. */
const FLOOR = '/bench/floor.ts';

/** The bucket of the first frame, leaf to root, that belongs to a package or to Signet. */
function bucketOfOwner(url: string, zodAbove: boolean): Bucket | undefined {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const name = url.slice(modules + '/node_modules/'.length).split('/')[0]!;
    if (name === 'zod') return 'validation';
    if (name === 'pino' || name.startsWith('pino-') || ['sonic-boom', 'fast-redact', 'quick-format-unescaped', 'thread-stream', 'on-exit-leak-free', 'fast-safe-stringify', 'safe-stable-stringify'].includes(name)) {
      return 'logging';
    }
    if (name === 'pg' || name.startsWith('pg-') || name.startsWith('postgres-')) return 'pg client';
    if (['prom-client', 'tdigest', 'bintrees'].includes(name)) return 'metrics';
    if (name === 'fastify' || name.startsWith('@fastify') || ['find-my-way', 'avvio', 'light-my-request', 'fast-json-stringify', 'fast-querystring', 'secure-json-parse', 'abstract-logging', 'toad-cache', 'process-warning', 'rfdc', 'fast-decode-uri-component', 'ret', 'safe-regex2', 'content-type'].includes(name)) {
      return 'HTTP';
    }
    if (name === 'tsx' || name === 'esbuild') return 'other';
    return undefined;
  }
  // Signet's own files, built (dist/) or as sources (src/).
  const match = /\/(?:dist|src)\/(.+)\.[jt]s$/.exec(url);
  if (!match) return undefined;
  const file = match[1]!;
  // What zod calls back (a handler's refinement, the contract checks) validates the parameters.
  if (zodAbove && (file.startsWith('activities/') || file.startsWith('contracts/') || file.startsWith('wire/'))) return 'validation';
  if (file === 'wire/jsonDocument' || file === 'http/rawBody') return 'parsing';
  if (file.startsWith('policy/') || file === 'activities/lifecycle/authorization' || file === 'activities/lifecycle/decision') return 'authorization';
  if (file.startsWith('auth/') || file.startsWith('keys/')) return 'stamp verification';
  if (file === 'activities/wire/render' || file === 'activities/wire/activitySchema') return 'rendering';
  if (file.startsWith('contracts/') || file === 'activities/wire/envelope' || file === 'activities/wire/parameters' || file === 'wire/violations') return 'validation';
  if (file === 'http/metrics') return 'metrics';
  if (file === 'cli/logOutput') return 'logging';
  if (file.startsWith('http/')) return 'HTTP';
  if (file.startsWith('store/')) return 'SQL building';
  if (file.startsWith('activities/') || file.startsWith('wire/')) return 'activity logic';
  return 'other';
}

/** The bucket of Node's own module at the leaf when no package or Signet frame is on the stack. */
function bucketOfNode(url: string): Bucket {
  if (url.startsWith('node:internal/crypto')) return 'stamp verification';
  if (/^node:(?:_http|net$|internal\/(?:stream_base_commons|streams|http|net))/.test(url)) return 'HTTP';
  return 'other';
}

/** One sample's bucket, from its stack (leaf first). */
export function classify(stack: ReadonlyArray<{ functionName: string; url: string }>): Bucket | 'idle' {
  const leaf = stack[0]!;
  if (leaf.functionName === '(idle)') return 'idle';
  if (leaf.functionName === '(garbage collector)') return 'GC';
  if (leaf.functionName === '(program)') return 'V8 (program)';
  for (let i = 0; i < stack.length; i++) {
    const frame = stack[i]!;
    if (frame.url.endsWith(FLOOR)) {
      const node = stack.slice(0, i).find((below) => below.url.startsWith('node:'));
      if (node) return bucketOfNode(node.url);
      return leaf.url === '' && leaf.functionName === 'parse' ? 'parsing' : 'HTTP';
    }
    if (passThrough(frame.url)) continue;
    const zodAbove = stack.slice(i + 1).some((above) => above.url.includes('/node_modules/zod/'));
    const bucket = bucketOfOwner(frame.url, zodAbove);
    if (bucket) return bucket;
  }
  const node = stack.find((frame) => frame.url.startsWith('node:'));
  return node ? bucketOfNode(node.url) : 'other';
}

export interface BucketTimes {
  /** Microseconds of main-thread CPU per bucket (idle left out). */
  us: Record<Bucket, number>;
  /** The busiest functions of each bucket (self time, µs): name and file. */
  top: Record<Bucket, Array<{ name: string; us: number }>>;
  /** Microseconds of samples counted (busy and idle), and activities answered in them. */
  spanUs: number;
  activities: number | undefined;
}

/**
 * Self time of the samples inside `windows` (all of them when none), by bucket. A sample's time is
 * the delta to the next sample, as V8's own tools count it.
 */
export function bucketTimes(profile: CpuProfile, windows?: Window[], topCount = 5): BucketTimes {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const bucketOfNodeId = new Map<number, Bucket | 'idle'>();
  const nodeBucket = (id: number) => {
    let bucket = bucketOfNodeId.get(id);
    if (bucket === undefined) {
      const stack = [];
      for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) stack.push(byId.get(at)!.callFrame);
      bucket = classify(stack);
      bucketOfNodeId.set(id, bucket);
    }
    return bucket;
  };
  const us = Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>;
  const functions = new Map<Bucket, Map<string, number>>();
  let spanUs = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (windows && !windows.some((w) => time >= w.startUs && time < w.endUs)) continue;
    spanUs += delta;
    const id = profile.samples[i]!;
    const bucket = nodeBucket(id);
    if (bucket === 'idle') continue;
    us[bucket] += delta;
    const frame = byId.get(id)!.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}`.trim();
    const ofBucket = functions.get(bucket) ?? new Map<string, number>();
    ofBucket.set(name, (ofBucket.get(name) ?? 0) + delta);
    functions.set(bucket, ofBucket);
  }
  const top = Object.fromEntries(
    BUCKETS.map((b) => [
      b,
      [...(functions.get(b) ?? new Map<string, number>())]
        .sort((x, y) => y[1] - x[1])
        .slice(0, topCount)
        .map(([name, time]) => ({ name, us: time })),
    ]),
  ) as BucketTimes['top'];
  const activities = windows ? windows.reduce((sum, w) => sum + w.activities, 0) : undefined;
  return { us, top, spanUs, activities };
}

/** A file's URL without the repository's path or node_modules' prefix. */
function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  return url.replace(/^file:\/\/.*?\/(dist|src|bench)\//, '$1/');
}

/**
 * The table: one column pair per profile (ms per activity, % of its busy time), one row per bucket,
 * then the first column's ms per activity less each other's (Signet − floor, Signet − baseline).
 */
export function formatBucketTable(columns: Array<{ label: string; times: BucketTimes; activities?: number }>): string {
  const perActivity = (c: (typeof columns)[number], b: Bucket) => {
    const n = c.activities ?? c.times.activities;
    return n ? c.times.us[b] / 1000 / n : undefined;
  };
  const busy = (c: (typeof columns)[number]) => BUCKETS.reduce((sum, b) => sum + c.times.us[b], 0);
  const others = columns.slice(1);
  const header = ['bucket', ...columns.flatMap((c) => [`${c.label} ms/act`, '%']), ...others.map((c) => `${columns[0]!.label} − ${c.label}`)];
  const cell = (value: number | undefined, digits: number) => (value === undefined ? 'n/a' : value.toFixed(digits));
  const rows = BUCKETS.map((b) => [
    b,
    ...columns.flatMap((c) => [cell(perActivity(c, b), 3), cell((100 * c.times.us[b]) / (busy(c) || 1), 1)]),
    ...others.map((c) => difference(perActivity(columns[0]!, b), perActivity(c, b))),
  ]);
  const totals = columns.map((c) => {
    const n = c.activities ?? c.times.activities;
    return n ? busy(c) / 1000 / n : undefined;
  });
  rows.push([
    'main thread, in all',
    ...totals.flatMap((t) => [cell(t, 3), '100']),
    ...totals.slice(1).map((t) => difference(totals[0], t)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function difference(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined) return 'n/a';
  const d = a - b;
  return `${d >= 0 ? '+' : ''}${d.toFixed(3)}`;
}

/** The busiest functions of each bucket of one profile, for the buckets that weigh. */
export function formatTopFunctions(label: string, times: BucketTimes): string {
  const n = times.activities;
  const lines = [`${label}: busiest functions (self time${n ? ', µs per activity' : ', ms'})`];
  for (const b of BUCKETS) {
    const top = times.top[b].filter((f) => f.us > 0);
    if (top.length === 0) continue;
    lines.push(`  ${b}: ${top.map((f) => `${f.name} ${n ? (f.us / n).toFixed(1) : (f.us / 1000).toFixed(0)}`).join('; ')}`);
  }
  return lines.join('\n');
}

/** The profile and, when bench/run.ts wrote one beside it, its windows. */
export function readProfile(file: string): { profile: CpuProfile; windows?: Window[] } {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const windowsFile = `${file}.windows.json`;
  return fs.existsSync(windowsFile) ? { profile, windows: JSON.parse(fs.readFileSync(windowsFile, 'utf8')) as Window[] } : { profile };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { activities: { type: 'string' }, top: { type: 'string', default: '5' } },
  });
  if (positionals.length === 0) {
    console.error('usage: node --import tsx bench/profileBuckets.ts FILE.cpuprofile [FILE2 …] [--activities N] [--top 5]');
    process.exit(2);
  }
  const columns = positionals.map((file) => {
    const { profile, windows } = readProfile(file);
    const times = bucketTimes(profile, windows, Number(values.top));
    const activities = values.activities ? Number(values.activities) : times.activities;
    return { label: file.replace(/^.*\//, '').replace(/\.cpuprofile$/, ''), times, ...(activities ? { activities } : {}) };
  });
  console.log(formatBucketTable(columns));
  for (const c of columns) console.log(`\n${formatTopFunctions(c.label, { ...c.times, activities: c.activities })}`);
}
