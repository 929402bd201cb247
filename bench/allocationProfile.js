// What a process allocates, by the code that allocates it: garbage included, which `node
// --heap-prof` leaves out (it keeps only what is still alive at the end). Two uses:
//  - preloaded into `signet serve` by the benchmark, V8's sampling heap profiler with collected
//    objects kept, from ALLOCATION_PROFILE_DELAY_MS after the start (default 6000: after the set-up),
//    written at exit to ALLOCATION_PROFILE_DIR/allocation-<pid>.heapprofile:
//      node bench/run.ts --only create-16 --signet-env \
//        'NODE_OPTIONS=--import=/abs/path/bench/allocationProfile.js ALLOCATION_PROFILE_DIR=/tmp/alloc'
//  - on its own, the profile read back: KB per activity by the first frame of Signet or of a package
//    on each allocation's stack (Node's and V8's own frames pass the charge on, as in profileBuckets.ts):
//      node bench/allocationProfile.js /tmp/alloc/allocation-1234.heapprofile --activities 1300 [--top 30]
// Plain JavaScript: `signet serve` runs without a TypeScript loader.
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** Sampled every this many bytes on average: fine enough for a few KB per activity, cheap enough to run under load. */
const SAMPLING_INTERVAL_BYTES = 4096;

function profileThisProcess() {
  const session = new inspector.Session();
  session.connect();
  const folder = process.env.ALLOCATION_PROFILE_DIR ?? '.';
  const delay = Number(process.env.ALLOCATION_PROFILE_DELAY_MS ?? 6000);
  setTimeout(() => {
    session.post('HeapProfiler.startSampling', {
      samplingInterval: SAMPLING_INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }, delay).unref();
  // An in-process session answers at once, so the profile is written before the process is gone.
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error) return;
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, `allocation-${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}

/** A frame's file without the repository's path or node_modules' prefix; empty for V8's and Node's own. */
function ownerOf(url) {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const own = /\/(dist|src|bench)\/(.+)$/.exec(url);
  return own ? `${own[1]}/${own[2]}` : '';
}

function summarize(file, activities, top) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byOwner = new Map();
  let total = 0;
  const stack = [{ node: profile.head, owner: '' }];
  while (stack.length > 0) {
    const { node, owner: above } = stack.pop();
    const frame = node.callFrame;
    const mine = ownerOf(frame.url);
    // The leaf's own frame when it is Signet's or a package's, else the nearest such frame above it.
    const owner = mine ? `${frame.functionName || '(anonymous)'} ${mine}` : above;
    const bytes = node.selfSize ?? 0;
    if (bytes > 0) {
      total += bytes;
      const key = owner || `${frame.functionName || '(anonymous)'} (V8 or Node)`;
      byOwner.set(key, (byOwner.get(key) ?? 0) + bytes);
    }
    for (const child of node.children ?? []) stack.push({ node: child, owner });
  }
  const per = (bytes) => (activities ? `${(bytes / activities / 1000).toFixed(2)} KB/act` : `${(bytes / 1e6).toFixed(2)} MB`);
  console.log(`${file}: ${per(total)} allocated in all`);
  for (const [owner, bytes] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${per(bytes).padStart(14)}  ${(100 * bytes / total).toFixed(1).padStart(5)} %  ${owner}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { activities: { type: 'string' }, top: { type: 'string', default: '30' } } });
  if (positionals.length !== 1) {
    console.error('usage: node bench/allocationProfile.js FILE.heapprofile [--activities N] [--top 30]');
    process.exit(2);
  }
  summarize(positionals[0], values.activities ? Number(values.activities) : undefined, Number(values.top));
} else {
  profileThisProcess();
}
