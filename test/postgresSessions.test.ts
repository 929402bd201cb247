// Signet's connections to PostgreSQL run without JIT compilation (its statements are short: a group
// commit whose estimated cost passed jit_above_cost spent 130 ms of the server's CPU compiling each
// time), and keep the `options` the URL gives. Run when SIGNET_TEST_DATABASE_URL names a server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../src/store/db.ts';

const url = process.env.SIGNET_TEST_DATABASE_URL;
const skip = url ? false : 'SIGNET_TEST_DATABASE_URL is not set: no PostgreSQL server to connect to';

test('a connection runs with jit off, and with the options its URL names', { skip }, async () => {
  const withOptions = new URL(url!);
  withOptions.searchParams.set('options', '-c work_mem=8MB');
  for (const [given, workMem] of [
    [url!, undefined],
    [withOptions.toString(), '8MB'],
  ] as const) {
    const db = await openDatabase({ url: given });
    try {
      const [row] = await db.query<{ jit: string; work_mem: string }>("SELECT current_setting('jit') AS jit, current_setting('work_mem') AS work_mem");
      assert.equal(row!.jit, 'off', given);
      if (workMem) assert.equal(row!.work_mem, workMem);
      // A transaction's connection is one of the pool's, set up the same way.
      const inTransaction = await db.transaction((tx) => tx.query<{ jit: string }>("SELECT current_setting('jit') AS jit"));
      assert.equal(inTransaction[0]!.jit, 'off');
    } finally {
      await db.close();
    }
  }
});
