// A short run of the policy fuzzer (bench/policyFuzz.ts): generated, mutated and adversarial
// expressions compile and evaluate without an exception escaping and with every error positioned in
// its expression. The long run (`npm run fuzz:policy -- --expressions 100000`) is not part of npm test.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, run } from './support/processes.ts';

test('2,000 fuzzed policy expressions: no exception escapes, every error has a position', async () => {
  const finished = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'policyFuzz.ts'), '--expressions', '2000', '--seed', '7'], {}, 120_000);
  assert.equal(finished.code, 0, finished.stdout + finished.stderr);
  assert.match(finished.stdout, /escaped exceptions: 0, malformed results: 0/);
  const counts = /expressions: 2000, compiled: (\d+), compile errors: (\d+), evaluated: \d+, evaluation errors: (\d+), decisions: (\d+)/.exec(finished.stdout);
  assert.ok(counts, finished.stdout);
  const [compiled, compileErrors, evaluationErrors, decisions] = counts.slice(1).map(Number) as [number, number, number, number];
  assert.ok(compiled > 500 && compileErrors > 500, 'both valid and invalid expressions were reached');
  assert.ok(evaluationErrors > 50 && evaluationErrors < compiled, 'evaluation both succeeded and failed');
  assert.ok(decisions > 50);
  // Conditions over the signing keywords (eth.tx, eth.eip_712, solana.tx over decoded values) were evaluated, to values and to errors.
  const signing = /signing keywords bound: (\d+) conditions evaluated to a value, (\d+) to an error/.exec(finished.stdout);
  assert.ok(signing && Number(signing[1]) > 5 && Number(signing[2]) > 5, finished.stdout);
});
