// The foreign keys of the rows an activity's statement writes (migration 033): the database refuses a
// row naming an organization, user, activity or OTP it does not hold, on both stores; a statement
// writing a row before the one it names (a verification token's use, taken by a gate before the
// activity row) is accepted, since a key is checked when the statement ends; and the schema holds
// exactly the keys docs/benchmarks.md lists, each validated.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../src/store/db.ts';
import { testDatabases } from './support/databases.ts';

/** SQLSTATE foreign_key_violation. */
const FOREIGN_KEY_VIOLATION = '23503';

/** Every foreign key of the schema, as `table.column → table.column`. */
const EXPECTED_KEYS = [
  // 033: the rows of an activity's statement.
  'activities.organization_id → organizations.id',
  'otps.activity_id → activities.id',
  'otps.organization_id → organizations.id',
  'outbox.organization_id → organizations.id',
  'outbox.otp_id → otps.id',
  'smart_contract_interfaces.activity_id → activities.id',
  'smart_contract_interfaces.organization_id → organizations.id',
  'verification_token_uses.activity_id → activities.id',
  'verification_token_uses.organization_id → organizations.id',
  'votes.activity_id → activities.id',
  'votes.organization_id → organizations.id',
  'votes.user_id → users.id',
  // Kept since they were made.
  'api_keys.organization_id → organizations.id',
  'api_keys.tree_id → organizations.id',
  'api_keys.user_id → users.id',
  'approval_requests.activity_id → activities.id',
  'approval_requests.user_id → users.id',
  'auth_proxy_configs.api_key_id → api_keys.id',
  'auth_proxy_configs.organization_id → organizations.id',
  'auth_proxy_configs.user_id → users.id',
  'authenticators.organization_id → organizations.id',
  'authenticators.user_id → users.id',
  'email_templates.organization_id → organizations.id',
  'organizations.parent_id → organizations.id',
  'policies.organization_id → organizations.id',
  'private_key_addresses.organization_id → organizations.id',
  'private_key_addresses.private_key_id → private_keys.id',
  'private_keys.activity_id → activities.id',
  'private_keys.organization_id → organizations.id',
  'root_quorum_members.organization_id → root_quorums.organization_id',
  'root_quorum_members.organization_id, user_id → users.organization_id, id',
  'root_quorums.organization_id → organizations.id',
  'sender_domains.organization_id → organizations.id',
  'user_tag_members.tag_id → user_tags.id',
  'user_tag_members.user_id → users.id',
  'user_tags.organization_id → organizations.id',
  'users.organization_id → organizations.id',
  'webhook_endpoints.organization_id → organizations.id',
  // 034: wallets and their accounts.
  'wallet_accounts.organization_id → organizations.id',
  'wallet_accounts.wallet_id → wallets.id',
  'wallets.activity_id → activities.id',
  'wallets.organization_id → organizations.id',
  // 036: pending imports.
  'pending_imports.activity_id → activities.id',
  'pending_imports.organization_id → organizations.id',
  'pending_imports.user_id → users.id',
  // 039: OAuth providers.
  'oauth_providers.activity_id → activities.id',
  'oauth_providers.organization_id → organizations.id',
  'oauth_providers.user_id → users.id',
].sort();

for (const tdb of testDatabases) {
  describe(`foreign keys (${tdb.name})`, () => {
    let db: Database;
    const organizationId = randomUUID();
    const userId = randomUUID();
    const activityId = randomUUID();
    const otpId = randomUUID();
    let fingerprints = 0;

    before(async () => {
      db = await tdb.open();
      await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'keys']);
      await db.query('INSERT INTO users (id, organization_id, user_name) VALUES ($1, $2, $3)', [userId, organizationId, 'voter']);
      await db.query(activityInsert(), [activityId, organizationId, `sha256:${++fingerprints}`]);
      await db.query(otpInsert(), [otpId, organizationId, activityId]);
    });
    after(async () => {
      await db?.close();
    });

    test('the schema holds every key listed, each validated against the rows stored before', async () => {
      const keys = await db.query<{ key: string; validated: boolean }>(
        `SELECT c.conrelid::regclass::text || '.' || (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum)
                || ' → ' || c.confrelid::regclass::text || '.' || (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum) AS key,
                c.convalidated AS validated
           FROM pg_constraint c
          WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`,
      );
      assert.deepEqual(keys.map((k) => k.key).sort(), EXPECTED_KEYS);
      assert.deepEqual(keys.filter((k) => !k.validated), []);
    });

    test('a row naming an organization, user, activity or OTP the store does not hold is refused', async () => {
      const missing = randomUUID();
      const refusals: Array<[constraint: string, statement: string, values: unknown[]]> = [
        ['activities_organization_id_fkey', activityInsert(), [randomUUID(), missing, `sha256:${++fingerprints}`]],
        ['votes_activity_id_fkey', voteInsert(), [randomUUID(), missing, organizationId, userId]],
        ['votes_organization_id_fkey', voteInsert(), [randomUUID(), activityId, missing, userId]],
        ['votes_user_id_fkey', voteInsert(), [randomUUID(), activityId, organizationId, missing]],
        ['smart_contract_interfaces_organization_id_fkey', interfaceInsert(), [randomUUID(), missing, activityId]],
        ['smart_contract_interfaces_activity_id_fkey', interfaceInsert(), [randomUUID(), organizationId, missing]],
        ['otps_organization_id_fkey', otpInsert(), [randomUUID(), missing, activityId]],
        ['otps_activity_id_fkey', otpInsert(), [randomUUID(), organizationId, missing]],
        ['outbox_organization_id_fkey', outboxInsert(), [randomUUID(), missing, otpId]],
        ['outbox_otp_id_fkey', outboxInsert(), [randomUUID(), organizationId, missing]],
        ['verification_token_uses_organization_id_fkey', tokenUseInsert(), [randomUUID(), missing, activityId]],
        ['verification_token_uses_activity_id_fkey', tokenUseInsert(), [randomUUID(), organizationId, missing]],
      ];
      for (const [constraint, statement, values] of refusals) {
        await assert.rejects(db.query(statement, values), (error: { code?: string; message: string }) => {
          assert.equal(error.code, FOREIGN_KEY_VIOLATION, `${constraint}: ${error.message}`);
          assert.match(error.message, new RegExp(constraint));
          return true;
        });
      }
      // The same rows naming what exists are written: the refusals above were the keys'.
      await db.query(voteInsert(), [randomUUID(), activityId, organizationId, userId]);
      await db.query(interfaceInsert(), [randomUUID(), organizationId, activityId]);
      await db.query(outboxInsert(), [randomUUID(), organizationId, otpId]);
      await db.query(tokenUseInsert(), [randomUUID(), organizationId, activityId]);
    });

    test('one statement may write a row before the row it names: the keys are checked when it ends', async () => {
      // As an activity's statement does: a gate takes a verification token's use for the activity,
      // then the activity row is written, then its vote and interface from it.
      const id = randomUUID();
      const [written] = await db.query(
        `WITH token_use AS (
           INSERT INTO verification_token_uses (token_id, usage, organization_id, activity_id, expires_at, used_at)
           VALUES ($1, 'login', $2, $3, now() + interval '1 hour', now()) RETURNING token_id),
         new_activity AS (
           INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result, created_at, updated_at)
           SELECT $3, $2, 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', 'ACTIVITY_STATUS_COMPLETED', $4, '1', '{}', 'stamp', '{}', '{}'::jsonb, now(), now()
            WHERE EXISTS (SELECT 1 FROM token_use)
           RETURNING id),
         vote AS (
           INSERT INTO votes (id, activity_id, organization_id, user_id, selection, public_key, signature, scheme, created_at)
           SELECT $5, id, $2, $6, 'VOTE_SELECTION_APPROVED', '02ab', '3006', 'SIGNATURE_SCHEME_TK_API_P256', now() FROM new_activity
           RETURNING id),
         interface AS (
           INSERT INTO smart_contract_interfaces (id, organization_id, activity_id, smart_contract_address, smart_contract_interface, type, label, digest, created_at, updated_at)
           SELECT $7, $2, id, '0x', '[]', 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', 'l', 'd', now(), now() FROM new_activity
           RETURNING id)
         SELECT (SELECT count(*)::int FROM new_activity) AS activities, (SELECT count(*)::int FROM vote) AS votes,
                (SELECT count(*)::int FROM interface) AS interfaces`,
        [randomUUID(), organizationId, id, `sha256:${++fingerprints}`, randomUUID(), userId, randomUUID()],
      );
      assert.deepEqual(written, { activities: 1, votes: 1, interfaces: 1 });
    });

    test('a user removed, a sub-organization deleted: their rows and the rows naming them stay; a DELETE of either is refused', async () => {
      // Removal and deletion are marks (removed_at, deleted_at), never a DELETE: the keys need no ON DELETE.
      const subOrganizationId = randomUUID();
      const removedId = randomUUID();
      const subActivityId = randomUUID();
      await db.query('INSERT INTO organizations (id, name, parent_id) VALUES ($1, $2, $3)', [subOrganizationId, 'sub', organizationId]);
      await db.query('INSERT INTO users (id, organization_id, user_name) VALUES ($1, $2, $3)', [removedId, subOrganizationId, 'removed']);
      await db.query(activityInsert(), [subActivityId, subOrganizationId, `sha256:${++fingerprints}`]);
      await db.query(voteInsert(), [randomUUID(), subActivityId, subOrganizationId, removedId]);
      await db.query('UPDATE users SET removed_at = now() WHERE id = $1', [removedId]);
      await db.query('UPDATE organizations SET deleted_at = now() WHERE id = $1', [subOrganizationId]);
      const [votes] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM votes WHERE user_id = $1 AND organization_id = $2', [removedId, subOrganizationId]);
      assert.equal(votes!.n, 1);
      const refused = (error: { code?: string }) => error.code === FOREIGN_KEY_VIOLATION;
      await assert.rejects(db.query('DELETE FROM users WHERE id = $1', [removedId]), refused);
      await assert.rejects(db.query('DELETE FROM activities WHERE id = $1', [subActivityId]), refused);
      await assert.rejects(db.query('DELETE FROM organizations WHERE id = $1', [subOrganizationId]), refused);
    });
  });
}

/** An activity ($1 id, $2 organization, $3 fingerprint), written when `condition` holds. */
function activityInsert(condition = ''): string {
  return `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result, created_at, updated_at)
          SELECT $1, $2, 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', 'ACTIVITY_STATUS_COMPLETED', $3, '1', '{}', 'stamp',
                 '{"createSmartContractInterfaceIntent":{}}', '{"createSmartContractInterfaceResult":{}}'::jsonb, now(), now() ${condition}`;
}

/** A vote ($1 id) on activity $2 of organization $3 by user $4. */
function voteInsert(): string {
  return `INSERT INTO votes (id, activity_id, organization_id, user_id, selection, public_key, signature, scheme, created_at)
          VALUES ($1, $2, $3, $4, 'VOTE_SELECTION_APPROVED', '02ab', '3006', 'SIGNATURE_SCHEME_TK_API_P256', now())`;
}

/** A smart contract interface ($1 id) of organization $2, created by activity $3. */
function interfaceInsert(): string {
  return `INSERT INTO smart_contract_interfaces (id, organization_id, activity_id, smart_contract_address, smart_contract_interface, type, label, digest, created_at, updated_at)
          VALUES ($1, $2, $3, '0x', '[]', 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', 'l', 'd', now(), now())`;
}

/** An OTP ($1 id) of organization $2, issued by activity $3. */
function otpInsert(): string {
  return `INSERT INTO otps (id, organization_id, activity_id, otp_type, contact, code_hash, otp_length, alphanumeric, expires_at)
          VALUES ($1, $2, $3, 'OTP_TYPE_EMAIL', 'a@example.com', 'hash', 9, true, now() + interval '5 minutes')`;
}

/** An outbox message ($1 id) of organization $2 carrying OTP $3. */
function outboxInsert(): string {
  return `INSERT INTO outbox (id, organization_id, otp_id, channel, payload) VALUES ($1, $2, $3, 'email', '{}')`;
}

/** A verification token's use ($1 token id) in organization $2 by activity $3. */
function tokenUseInsert(): string {
  return `INSERT INTO verification_token_uses (token_id, usage, organization_id, activity_id, expires_at, used_at)
          VALUES ($1, 'login', $2, $3, now() + interval '1 hour', now())`;
}
