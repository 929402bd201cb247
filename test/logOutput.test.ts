// The log output of `signet serve`: lines given within the interval reach the output in one write
// (a busy server makes tens of writes a second, not one per activity), in order, none lost — not at
// a graceful stop, not at process.exit(), not at an uncaught exception.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { BATCH_BYTES, BatchedLogOutput, type LogSink } from '../src/cli/logOutput.ts';
import { ROOT } from './support/processes.ts';

class RecordingSink implements LogSink {
  writes: string[] = [];
  syncFlushes = 0;
  write(data: string) {
    this.writes.push(data);
    return true;
  }
  flushSync() {
    this.syncFlushes++;
  }
}

const line = (n: number) => `${JSON.stringify({ level: 30, n, msg: 'activity created' })}\n`;

describe('batched log output', () => {
  test('lines given within the interval are written once, in order, when it ends', async () => {
    const sink = new RecordingSink();
    const output = new BatchedLogOutput(sink, 20);
    try {
      for (let n = 0; n < 500; n++) output.write(line(n));
      assert.equal(sink.writes.length, 0, 'nothing written before the interval ends');
      await new Promise((resolve) => setTimeout(resolve, 60));
      assert.equal(sink.writes.length, 1);
      assert.equal(sink.writes[0], Array.from({ length: 500 }, (_, n) => line(n)).join(''));
      // The next line starts a new interval.
      output.write(line(500));
      await new Promise((resolve) => setTimeout(resolve, 60));
      assert.deepEqual(sink.writes.slice(1), [line(500)]);
    } finally {
      output.detach();
    }
  });

  test('a batch reaching BATCH_BYTES is written at once', () => {
    const sink = new RecordingSink();
    const output = new BatchedLogOutput(sink, 60_000);
    try {
      const big = `${JSON.stringify({ msg: 'x'.repeat(1000) })}\n`;
      const perBatch = Math.ceil(BATCH_BYTES / big.length);
      for (let n = 0; n < perBatch; n++) output.write(big);
      assert.equal(sink.writes.length, 1);
      assert.equal(sink.writes[0]!.length, perBatch * big.length);
    } finally {
      output.flush();
      output.detach();
    }
  });

  test('flushSync hands the gathered lines over and flushes the output', () => {
    const sink = new RecordingSink();
    const output = new BatchedLogOutput(sink, 60_000);
    try {
      output.write(line(1));
      output.write(line(2));
      output.flushSync();
      assert.deepEqual(sink.writes, [line(1) + line(2)]);
      assert.equal(sink.syncFlushes, 1);
    } finally {
      output.detach();
    }
  });

  // A process writing to a pipe, as under a supervisor: every line it logged is in the pipe, however it ends.
  const ends = {
    'process.exit()': { ending: 'process.exit(3)', code: 3 },
    'an uncaught exception': { ending: "throw new Error('boom')", code: 1 },
    'the event loop running out': { ending: '', code: 0 },
  };
  for (const [how, { ending, code: expectedCode }] of Object.entries(ends)) {
    test(`every line reaches a pipe when the process ends by ${how}`, async () => {
      const script = [
        `import pino from 'pino';`,
        `import { logOutput } from ${JSON.stringify(path.join(ROOT, 'src/cli/logOutput.ts'))};`,
        `const log = pino({ level: 'info' }, logOutput(1));`,
        `for (let n = 0; n < 3000; n++) log.info({ n }, 'activity created');`,
        ending,
      ].join('\n');
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      const numbers = stdout
        .split('\n')
        .filter(Boolean)
        .map((text) => (JSON.parse(text) as { n: number }).n);
      assert.equal(numbers.length, 3000, `exit ${code}; stderr: ${stderr.slice(0, 500)}`);
      assert.deepEqual(numbers, Array.from({ length: 3000 }, (_, n) => n));
      assert.equal(code, expectedCode, stderr);
      if (expectedCode !== 1) assert.equal(stderr, '');
    });
  }
});
