// Upgrading a store keeps what it holds readable: activities written before migration 012 (intent and
// result stored bare) render the same answer after it as an activity written today, and users made
// before 013 have no contacts and were last changed when created.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { activityResponseJson } from '../src/activities/render.ts';
import { openDatabase, type Database } from '../src/store/db.ts';
import { findActivity } from '../src/store/activities.ts';
import { migrate } from '../src/store/migrate.ts';
import { createSchema, dropSchema, testDatabases } from './support/databases.ts';

for (const tdb of testDatabases) {
  describe(`upgrading a store (${tdb.name})`, () => {
    let db: Database;
    let schema: string | undefined;
    after(async () => {
      await db?.close();
      if (schema) await dropSchema(tdb.url!, schema);
    });

    test('activities written before intents and results were kept under their keys read the same after', async () => {
      if (tdb.url) {
        schema = await createSchema(tdb.url, 'signet_upgrade');
        db = await openDatabase({ url: tdb.url, schema });
      } else {
        db = await openDatabase({});
      }
      await migrate(db, { through: '011_lz4.sql' });
      const organizationId = randomUUID();
      const userId = randomUUID();
      await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'upgraded']);
      await db.query('INSERT INTO users (id, organization_id, user_name, created_at) VALUES ($1, $2, $3, $4)', [
        userId, organizationId, 'old user', new Date('2025-06-01T12:00:00.250Z'),
      ]);
      const rows = [
        ['ACTIVITY_TYPE_INIT_OTP_AUTH_V3', '{"otpType":"OTP_TYPE_EMAIL","contact":"a@example.com"}', { otpId: 'o-1' }],
        ['ACTIVITY_TYPE_VERIFY_OTP', '{"otpId":"o-1","otpCode":"<redacted>"}', { verificationToken: 't' }],
        ['ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', '{"label":"x"}', { smartContractInterfaceId: 's-1' }],
      ] as const;
      for (const [index, [type, intent, result]] of rows.entries()) {
        const at = new Date(Date.UTC(2026, 0, 1, 0, 0, index));
        await db.query(
          `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result, created_at, updated_at)
           VALUES ($1, $2, $3, 'ACTIVITY_STATUS_COMPLETED', $4, $5, '{}', 'stamp', $6, $7::jsonb, $8, $8)`,
          [randomUUID(), organizationId, type, `sha256:${index}`, String(at.getTime()), intent, JSON.stringify(result), at],
        );
      }

      const applied = await migrate(db);
      assert.ok(applied.includes('012_wrapped_intent_result.sql'), applied.join(', '));
      // Users made before they had contacts: none, not removed, last changed when created.
      const [user] = await db.query<{ email: string | null; phone_number: string | null; updated_at: Date; removed_at: Date | null }>(
        'SELECT email, phone_number, updated_at, removed_at FROM users WHERE id = $1',
        [userId],
      );
      assert.deepEqual(user, { email: null, phone_number: null, updated_at: new Date('2025-06-01T12:00:00.250Z'), removed_at: null });
      const keys = [
        ['initOtpAuthIntentV3', 'initOtpAuthResultV2'],
        ['verifyOtpIntent', 'verifyOtpResult'],
        ['createSmartContractInterfaceIntent', 'createSmartContractInterfaceResult'],
      ];
      for (const [index, [, intent, result]] of rows.entries()) {
        const record = await findActivity(db, { organizationId, fingerprint: `sha256:${index}` });
        assert.ok(record);
        const { activity } = JSON.parse(activityResponseJson(record));
        const [intentKey, resultKey] = keys[index]!;
        assert.deepEqual(activity.intent, { [intentKey!]: JSON.parse(intent) });
        assert.deepEqual(activity.result[resultKey!], result);
        assert.deepEqual(activity.result.activity.result, { [resultKey!]: result });
      }
    });
  });
}
