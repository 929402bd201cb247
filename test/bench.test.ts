// The benchmark (bench/run.ts) is run by hand: it needs wrk and minutes of a quiet machine. What it
// refuses before measuring is checked here: a run with an option it cannot honour must stop and say
// why rather than measure something other than what was asked.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, run } from './support/processes.ts';

const bench = (...args: string[]) => run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'run.ts'), ...args], {}, 60_000);
const databaseUrl = process.env.SIGNET_TEST_DATABASE_URL;
const hasWrk = !spawnSync('wrk', ['-v']).error;

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

// One short round of the policy row, for real: its setup goes through the admin and public APIs (a
// second user, its key, 20 policies created by the root user's key), and the run stops unless its
// requests answer 200 with a completed activity.
test(
  'npm run bench -- --only policy-16: a user outside the root quorum, allowed by 1 of 20 policies, has every activity completed',
  { skip: !databaseUrl ? 'set SIGNET_TEST_DATABASE_URL (a PostgreSQL server on this machine)' : !hasWrk ? 'wrk is not installed' : false },
  async () => {
    const finished = await run(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'bench', 'run.ts'), '--only', 'policy-16', '--seconds', '1', '--rounds', '1', '--warmup', '0', '--idle', '1', '--statement-requests', '20'],
      { BENCH_DATABASE_URL: databaseUrl! },
      120_000,
    );
    assert.equal(finished.code, 0, finished.stdout + finished.stderr);
    assert.match(finished.stdout, /^create_smart_contract_interface, non-root user allowed by 1 of 20 policies\s+16\s+signet\s+\d+/m);
    assert.match(finished.stdout, /^signet serve's log level: info \(its default/m);
    assert.match(finished.stdout, /the same by a user allowed by 1 of 20 policies: \d+\.\d+× the floor/);
  },
);
