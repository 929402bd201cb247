// The benchmark (bench/run.ts) is run by hand: it needs wrk and minutes of a quiet machine. What it
// refuses before measuring is checked here: a run with an option it cannot honour must stop and say
// why rather than measure something other than what was asked.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, run } from './support/processes.ts';

const bench = (...args: string[]) => run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'run.ts'), ...args], {}, 60_000);

test('npm run bench stops on a --signet-env pair that is not NAME=value, naming it', async () => {
  const finished = await bench('--signet-env', 'SIGNET_DATABASE_POOL_SIZE=20 pool-size');
  assert.equal(finished.code, 1, finished.stdout + finished.stderr);
  assert.match(finished.stderr, /^bench: --signet-env takes NAME=value pairs separated by spaces, got "pool-size"$/m);
  assert.equal(finished.stdout, '', 'nothing measured');
});

test('npm run bench stops on a number of seconds out of its bounds', async () => {
  const finished = await bench('--seconds', '0');
  assert.equal(finished.code, 1, finished.stdout + finished.stderr);
  assert.match(finished.stderr, /^bench: --seconds must be a whole number from 1 to 60, got "0"$/m);
});
