// A short run of the fuzzer (bench/fuzz.ts) against a real `signet serve`: mutated requests on every
// public route get answers below 500 on connections that are never reset. The long run
// (`npm run fuzz -- --requests 100000`) is not part of npm test.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, run } from './support/processes.ts';

test('2,000 fuzzed requests over every public route: no 5xx, no connection reset', async () => {
  const finished = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'fuzz.ts'), '--requests', '2000', '--seed', '7'], {}, 120_000);
  assert.equal(finished.code, 0, finished.stdout + finished.stderr);
  assert.match(finished.stdout, /5xx: 0, connection errors: 0/);
  assert.match(finished.stdout, /status codes: .*200: \d+/, 'some requests got through every check');
});
