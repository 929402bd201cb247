// The embedded store runs PostgreSQL with bounded memory settings (docs/development.md, Quick start): on a new
// folder, on a folder made before with PostgreSQL's defaults, and in memory (the tests' store).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase, type Database } from '../src/store/db.ts';

const BOUNDS = {
  shared_buffers: '16MB',
  wal_buffers: '1MB',
  work_mem: '4MB',
  maintenance_work_mem: '16MB',
  temp_buffers: '1MB',
};

async function settings(db: Database): Promise<Record<string, string>> {
  const rows = await db.query<{ name: string; setting: string }>(
    `SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name = ANY($1) ORDER BY name`,
    [Object.keys(BOUNDS)],
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
}

describe('the embedded store bounds PostgreSQL memory', () => {
  const folders: string[] = [];
  const folder = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-memory-'));
    folders.push(dir);
    return path.join(dir, 'pglite');
  };
  after(() => folders.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  test('on a new folder, and again when it is reopened', async () => {
    const dataDir = folder();
    for (const attempt of ['new', 'reopened']) {
      const db = await openDatabase({ dataDir });
      try {
        assert.deepEqual(await settings(db), BOUNDS, attempt);
      } finally {
        await db.close();
      }
    }
  });

  test('on a folder made before, with PostgreSQL defaults', async () => {
    const dataDir = folder();
    const before = new PGlite(dataDir);
    assert.equal((await before.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0]!.shared_buffers, '128MB');
    await before.close();
    const db = await openDatabase({ dataDir });
    try {
      assert.deepEqual(await settings(db), BOUNDS);
    } finally {
      await db.close();
    }
  });

  test('in memory', async () => {
    const db = await openDatabase({});
    try {
      assert.deepEqual(await settings(db), BOUNDS);
    } finally {
      await db.close();
    }
  });
});
