// The development bootstrap runs once, on an empty embedded store only: never on PostgreSQL; its
// organization has its root user as root quorum, threshold 1, as @turnkey/http reads it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { bootstrapDevelopment, devCredentialsPath } from '../src/admin/devBootstrap.ts';
import { countOrganizations } from '../src/admin/organizations.ts';
import { loadConfig } from '../src/config.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer } from './support/server.ts';

for (const tdb of testDatabases) {
  describe(`development bootstrap (${tdb.name})`, () => {
    test(tdb.name === 'pglite' ? 'creates one organization, once' : 'does nothing on PostgreSQL', async () => {
      const db = await tdb.open();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-boot-'));
      const config = loadConfig({ SIGNET_DATA_DIR: dataDir });
      try {
        const first = await bootstrapDevelopment(db, config, 'http://127.0.0.1:8080');
        const second = await bootstrapDevelopment(db, config, 'http://127.0.0.1:8080');
        assert.equal(second, undefined);
        if (tdb.name === 'pglite') {
          assert.ok(first);
          assert.equal(await countOrganizations(db), 1);
          assert.deepEqual(JSON.parse(fs.readFileSync(devCredentialsPath(config), 'utf8')), first);
        } else {
          assert.equal(first, undefined);
          assert.equal(await countOrganizations(db), 0);
          assert.equal(fs.existsSync(devCredentialsPath(config)), false);
        }
      } finally {
        await db.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });

    if (tdb.name === 'pglite') {
      test("the Development organization's root quorum is its root user, threshold 1", async () => {
        const db = await tdb.open();
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-boot-'));
        try {
          const credentials = await bootstrapDevelopment(db, loadConfig({ SIGNET_DATA_DIR: dataDir }), 'http://127.0.0.1:8080');
          assert.ok(credentials);
          // Served on the bootstrapped store (which the server closes).
          const server = await startTestServer({ name: tdb.name, open: async () => db }, { SIGNET_OUTBOX_WORKER: 'false' });
          try {
            const client = server.client(credentials);
            const quorum = { threshold: 1, userIds: [credentials.userId] };
            assert.deepEqual(await client.getOrganizationConfigs({ organizationId: credentials.organizationId }), { configs: { features: [], quorum } });
            const { organizationData } = (await client.getOrganization({ organizationId: credentials.organizationId })) as any;
            assert.equal(organizationData.name, 'Development');
            assert.deepEqual(organizationData.rootQuorum, quorum);
            assert.deepEqual(organizationData.users.map((u: any) => [u.userId, u.userName]), [[credentials.userId, 'root']]);
          } finally {
            await server.close();
          }
        } finally {
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      });
    }
  });
}
