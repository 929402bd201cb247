// bench/profileBuckets.ts: who a CPU profile's samples are charged to, and which samples count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketTimes, classify, formatBucketTable, type CpuProfile } from '../bench/profileBuckets.ts';

const frame = (functionName: string, url = '') => ({ functionName, url });
const DIST = 'file:///srv/signet/dist';
const MODULES = 'file:///srv/signet/node_modules';

test('a native or Node frame is charged to the first package or Signet file above it', () => {
  // JSON.parse under the body's parser is parsing; under the renderer's JSON.stringify, rendering.
  assert.equal(classify([frame('parse'), frame('parseJsonDocument', `${DIST}/wire/jsonDocument.js`)]), 'parsing');
  assert.equal(classify([frame('stringify'), frame('activityJson', `${DIST}/activities/wire/render.js`)]), 'rendering');
  // The same socket write is the pg client's under pg, HTTP under Fastify.
  const writev = [frame('writev'), frame('writevGeneric', 'node:internal/stream_base_commons')];
  assert.equal(classify([...writev, frame('submit', `${MODULES}/pg/lib/query.js`)]), 'pg client');
  assert.equal(classify([...writev, frame('onSendEnd', `${MODULES}/fastify/lib/reply.js`)]), 'HTTP');
  // The signature check is the stamp's; a hash the engine makes is the engine's.
  assert.equal(classify([frame('verifyOneShot', 'node:internal/crypto/sig'), frame('verifyApiKeyStamp', `${DIST}/auth/verifyApiKeyStamp.js`)]), 'stamp verification');
  assert.equal(classify([frame('update', 'node:internal/crypto/hash'), frame('submit', `${DIST}/activities/lifecycle/engine.js`)]), 'activity logic');
  assert.equal(classify([frame('decide', `${DIST}/policy/decide.js`)]), 'authorization');
  assert.equal(classify([frame('asJson', `${MODULES}/pino/lib/tools.js`)]), 'logging');
});

test("a handler's refinement that zod calls is validation; the same file outside zod is activity logic", () => {
  const handler = frame('refine', `${DIST}/activities/handlers/contracts/createSmartContractInterface.js`);
  assert.equal(classify([handler, frame('run', `${MODULES}/zod/v4/core/schemas.js`)]), 'validation');
  assert.equal(classify([handler, frame('submit', `${DIST}/activities/lifecycle/engine.js`)]), 'activity logic');
});

test("V8's own entries, Node alone, and the floor's handler", () => {
  assert.equal(classify([frame('(idle)')]), 'idle');
  assert.equal(classify([frame('(garbage collector)')]), 'GC');
  assert.equal(classify([frame('(program)')]), 'V8 (program)');
  assert.equal(classify([frame('parserOnIncoming', 'node:_http_server')]), 'HTTP');
  assert.equal(classify([frame('runMicrotasks')]), 'other');
  const floor = frame('(anonymous)', 'file:///srv/signet/bench/floor.ts');
  assert.equal(classify([frame('verifyOneShot', 'node:internal/crypto/sig'), floor, frame('x', `${MODULES}/fastify/lib/route.js`)]), 'stamp verification');
  assert.equal(classify([floor, frame('x', `${MODULES}/fastify/lib/route.js`)]), 'HTTP');
});

/** root → (idle), root → handler → JSON.parse; samples at 0, 100, 300, 600, 1000 µs. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('parseBody', `${DIST}/wire/jsonDocument.js`), children: [4] },
    { id: 4, callFrame: frame('parse') },
  ],
  startTime: 1000,
  endTime: 2100,
  samples: [3, 4, 2, 4, 3],
  timeDeltas: [0, 100, 200, 300, 400],
};

test('only the samples inside the windows count, each for the time to the next sample, per activity', () => {
  const all = bucketTimes(profile);
  // Busy samples: at 1000 (100 µs), 1100 (200), 1600 (400); the last has no next sample.
  assert.equal(all.us.parsing, 700);
  assert.equal(all.activities, undefined);
  const windowed = bucketTimes(profile, [{ startUs: 1050, endUs: 1650, activities: 2 }]);
  assert.equal(windowed.us.parsing, 600);
  assert.equal(windowed.spanUs, 900, 'the idle sample inside the window is counted in the span, not in a bucket');
  assert.equal(windowed.activities, 2);
  const table = formatBucketTable([{ label: 'signet', times: windowed }, { label: 'floor', times: all, activities: 7 }]);
  assert.match(table, /^parsing\s+0\.300\s+100\.0\s+0\.100\s+100\.0\s+\+0\.200$/m);
  assert.match(table, /^main thread, in all\s+0\.300\s+100\s+0\.100\s+100\s+\+0\.200$/m);
});
