// Upgrading a store keeps what it holds readable: activities written before migration 012 (intent and
// result stored bare) render the same answer after it as an activity written today, and users made
// before 013 have no contacts and were last changed when created; votes stored in their own table
// before 017 move into their activity's row, and a store with two votes of one activity is refused;
// emails written before 018 are lowercased, no user lost, rate windows of one mailbox merged.
// bearer verification tokens and codes kept in clear are scrubbed by 019; 020 moves every vote of an
// activity row into the votes table again, rendered as before, one per user and activity; 022 gives
// every organization a root quorum: its first user alone (not removed when it has one), threshold 1,
// or no member when it has no user; 031 keeps a contact's verified moment only where a token proved it
// for that user; 032 keeps one registration of a public key per tree of organizations, the oldest;
// 033 gives an activity's rows their foreign keys, and a store holding rows that name nothing is refused.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { NO_ACCESS } from '../src/activities/lifecycle/decide.ts';
import { activityResponseJson } from '../src/activities/wire/render.ts';
import { openDatabase, type Database } from '../src/store/db.ts';
import { findActivity, type ActivityRecord } from '../src/store/activities.ts';
import { findApiKeysByPublicKey } from '../src/store/apiKeys.ts';
import { dryRunMigrations, migrate, MigrationFailed, migrationNames, migrationSql, migrationStatus } from '../src/store/migrate.ts';
import { createSchema, dropSchema, emptyEmbeddedStore, testDatabases } from './support/databases.ts';

/** A vote written before votes recorded their credential and policy evaluations (migration 023). */
const NOT_RECORDED = { credentialType: null, credentialId: null, webauthnCredentialId: null, policyEvaluations: [], authenticatorData: null, clientDataJson: null };

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
        db = await emptyEmbeddedStore();
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
        ['ACTIVITY_TYPE_VERIFY_OTP', '{"otpId":"o-1","otpCode":"[redacted]","publicKey":"02ab"}', { verificationToken: 't' }],
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
        const { activity } = JSON.parse(activityResponseJson(record, NO_ACCESS));
        const [intentKey, resultKey] = keys[index]!;
        assert.deepEqual(activity.intent, { [intentKey!]: JSON.parse(intent) });
        assert.deepEqual(activity.result[resultKey!], result);
        assert.deepEqual(activity.result.activity.result, { [resultKey!]: result });
      }
    });
  });
}

/** A new store (its own schema on PostgreSQL) migrated through `through`; `cleanup` closes and drops it. */
async function storeThrough(tdb: (typeof testDatabases)[number], cleanup: Array<() => Promise<void>>, through: string): Promise<Database> {
  let db: Database;
  if (tdb.url) {
    const schema = await createSchema(tdb.url, `signet_upgrade_${randomUUID().slice(0, 8)}`);
    db = await openDatabase({ url: tdb.url, schema });
    cleanup.push(async () => {
      await db.close();
      await dropSchema(tdb.url!, schema);
    });
  } else {
    db = await emptyEmbeddedStore();
    cleanup.push(() => db.close());
  }
  await migrate(db, { through });
  return db;
}

/** A new store migrated through 016, when votes had their own table, with one organization and user. */
async function storeBeforeVotesMoved(tdb: (typeof testDatabases)[number], cleanup: Array<() => Promise<void>>) {
  const db = await storeThrough(tdb, cleanup, '016_activity_statement_keys.sql');
  const organizationId = randomUUID();
  const userId = randomUUID();
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'votes']);
  await db.query('INSERT INTO users (id, organization_id, user_name, created_at) VALUES ($1, $2, $3, now())', [userId, organizationId, 'voter']);
  const activity = async (index: number, rawBody: string) => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result, created_at, updated_at)
       VALUES ($1, $2, 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', 'ACTIVITY_STATUS_COMPLETED', $3, '1', $4, 'stamp',
               '{"createSmartContractInterfaceIntent":{}}', '{"createSmartContractInterfaceResult":{}}', now(), now())`,
      [id, organizationId, `sha256:${index}`, rawBody],
    );
    return id;
  };
  const vote = (activityId: string, message: string | null, at: Date) =>
    db.query(
      `INSERT INTO votes (id, activity_id, user_id, selection, message, public_key, signature, scheme, created_at)
       VALUES ($1, $2, $3, 'VOTE_SELECTION_APPROVED', $4, '02ab', '3006', 'SIGNATURE_SCHEME_TK_API_P256', $5)`,
      [randomUUID(), activityId, userId, message, at],
    );
  return { db, organizationId, userId, activity, vote };
}

for (const tdb of testDatabases) {
  describe(`votes move into their activity's row (${tdb.name})`, () => {
    const cleanup: Array<() => Promise<void>> = [];
    after(async () => {
      for (const step of cleanup) await step();
    });

    test('every vote is carried over and renders as before: its message, or the raw body when it had none', async () => {
      const store = await storeBeforeVotesMoved(tdb, cleanup);
      const signedBody = await store.activity(0, '{"signed":"body"}');
      const ownMessage = await store.activity(1, '{"other":"body"}');
      await store.activity(2, '{}');
      const at = new Date('2026-01-02T03:04:05.678Z');
      await store.vote(signedBody, null, at);
      await store.vote(ownMessage, 'a message of its own', at);

      assert.ok((await migrate(store.db, { through: '017_vote_in_activity.sql' })).includes('017_vote_in_activity.sql'));
      const [left] = await store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'votes' AND schemaname = current_schema()");
      assert.equal(left!.n, 0, 'the votes table is gone');
      // Read as this version stores them (020 gave votes their own table again).
      await migrate(store.db);
      const votesOf = async (index: number) => {
        const record = await findActivity(store.db, { organizationId: store.organizationId, fingerprint: `sha256:${index}` });
        assert.ok(record);
        return JSON.parse(activityResponseJson(record, NO_ACCESS)).activity.votes as Array<Record<string, unknown>>;
      };
      const [first] = await votesOf(0);
      assert.equal(first!.message, '{"signed":"body"}');
      assert.equal(first!.userId, store.userId);
      assert.equal(first!.createdAt, at.toISOString());
      assert.equal((await votesOf(1))[0]!.message, 'a message of its own');
      assert.deepEqual(await votesOf(2), []);
    });

    test('a store holding two votes of one activity is refused, and left as it was', async () => {
      const store = await storeBeforeVotesMoved(tdb, cleanup);
      const activityId = await store.activity(0, '{}');
      await store.vote(activityId, null, new Date());
      await store.vote(activityId, 'second', new Date());
      await assert.rejects(migrate(store.db), /more than one vote/);
      const [kept] = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM votes');
      assert.equal(kept!.n, 2);
    });
  });
}

/** A store migrated through 017, when emails were kept as given, with two organizations. */
async function storeBeforeCanonicalContacts(tdb: (typeof testDatabases)[number], cleanup: Array<() => Promise<void>>) {
  const db = await storeThrough(tdb, cleanup, '017_vote_in_activity.sql');
  const organizations = [randomUUID(), randomUUID()] as const;
  for (const id of organizations) await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, 'contacts']);
  const user = async (organizationId: string, email: string, removed = false) => {
    const id = randomUUID();
    await db.query('INSERT INTO users (id, organization_id, user_name, email, removed_at) VALUES ($1, $2, $3, $4, $5)', [
      id, organizationId, email, email, removed ? new Date() : null,
    ]);
    return id;
  };
  const emailsOf = async (organizationId: string) =>
    (await db.query<{ id: string; user_name: string; email: string; removed: boolean }>(
      'SELECT id, user_name, email, removed_at IS NOT NULL AS removed FROM users WHERE organization_id = $1 ORDER BY id',
      [organizationId],
    ));
  return { db, organizations, user, emailsOf };
}

for (const tdb of testDatabases) {
  describe(`emails are kept in lowercase (${tdb.name})`, () => {
    const cleanup: Array<() => Promise<void>> = [];
    after(async () => {
      for (const step of cleanup) await step();
    });

    test('users, OTPs and rate windows written before are normalised; every user is kept, removed ones too', async () => {
      const store = await storeBeforeCanonicalContacts(tdb, cleanup);
      const [org, other] = store.organizations;
      const alice = await store.user(org, 'Alice@Example.com');
      // A removed user may have had the same mailbox in another spelling: it is kept, in lowercase too.
      const removed = await store.user(org, 'ALICE@example.com', true);
      const elsewhere = await store.user(other, 'alice@EXAMPLE.com');
      // Each OTP with the init_otp_auth activity that issued it, as Signet writes them (033's keys say so).
      let issued = 0;
      const otp = async (otpType: string, contact: string) => {
        const activityId = randomUUID();
        await store.db.query(
          `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result, created_at, updated_at)
           VALUES ($1, $2, 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3', 'ACTIVITY_STATUS_COMPLETED', $3, '1', '{}', 'stamp', '{}', '{}', now(), now())`,
          [activityId, org, `sha256:otp-${++issued}`],
        );
        await store.db.query(
          `INSERT INTO otps (id, organization_id, activity_id, otp_type, contact, code_hash, otp_length, alphanumeric, expires_at)
           VALUES ($1, $2, $3, $4, $5, 'hash', 9, true, now() + interval '5 minutes') RETURNING id`,
          [randomUUID(), org, activityId, otpType, contact],
        );
      };
      await otp('OTP_TYPE_EMAIL', 'Bob@Example.com');
      await otp('OTP_TYPE_SMS', '+14155552671');
      const at = (minutes: number) => new Date(Date.UTC(2026, 10, 25, 12, minutes));
      const window = (scope: string, ...minutes: number[]) =>
        store.db.query('INSERT INTO otp_rate_windows (scope, sent_at) VALUES ($1, $2)', [scope, minutes.map(at)]);
      // One mailbox's sends under three spellings (the organization id in capitals too) become one window.
      await window(`contact:OTP_TYPE_EMAIL:${org}:Victim@example.com`, 1, 3);
      await window(`contact:OTP_TYPE_EMAIL:${org.toUpperCase()}:victim@EXAMPLE.COM`, 2);
      await window(`contact:OTP_TYPE_EMAIL:${org}:victim@example.com`, 4);
      // A user identifier is the client's own value: only its organization id changes.
      await window(`user_identifier:OTP_TYPE_SMS:${org.toUpperCase()}:IP-Hash:1`, 5);
      await window(`contact:OTP_TYPE_SMS:${org}:+14155552671`, 6);

      assert.ok((await migrate(store.db)).includes('018_canonical_contacts.sql'));
      const expected = [
        { id: alice, user_name: 'Alice@Example.com', email: 'alice@example.com', removed: false },
        { id: removed, user_name: 'ALICE@example.com', email: 'alice@example.com', removed: true },
      ];
      assert.deepEqual(await store.emailsOf(org), expected.sort((a, b) => (a.id < b.id ? -1 : 1)), 'in the order of their ids');
      assert.deepEqual(await store.emailsOf(other), [{ id: elsewhere, user_name: 'alice@EXAMPLE.com', email: 'alice@example.com', removed: false }]);
      // The unique index now holds the lowercase form: another active user with it is refused.
      await assert.rejects(store.user(org, 'alice@example.com'), /users_organization_email|duplicate key/);
      const contacts = await store.db.query<{ otp_type: string; contact: string }>('SELECT otp_type, contact FROM otps ORDER BY otp_type');
      assert.deepEqual(contacts, [{ otp_type: 'OTP_TYPE_EMAIL', contact: 'bob@example.com' }, { otp_type: 'OTP_TYPE_SMS', contact: '+14155552671' }]);
      const windows = await store.db.query<{ scope: string; sent_at: Date[] }>('SELECT scope, sent_at FROM otp_rate_windows ORDER BY scope');
      assert.deepEqual(windows, [
        { scope: `contact:OTP_TYPE_EMAIL:${org}:victim@example.com`, sent_at: [1, 2, 3, 4].map(at) },
        { scope: `contact:OTP_TYPE_SMS:${org}:+14155552671`, sent_at: [at(6)] },
        { scope: `user_identifier:OTP_TYPE_SMS:${org}:IP-Hash:1`, sent_at: [at(5)] },
      ]);
    });

    test('two users not removed whose emails differ only in case (possible only without 013\'s index) stop the upgrade, and the store is left as it was', async () => {
      const store = await storeBeforeCanonicalContacts(tdb, cleanup);
      const [org] = store.organizations;
      await store.db.query('DROP INDEX users_organization_email');
      const first = await store.user(org, 'Twin@example.com');
      const second = await store.user(org, 'twin@example.com');
      const before = await store.emailsOf(org);
      await assert.rejects(migrate(store.db), (error: Error) => {
        assert.match(error.message, /have the email twin@example\.com in different letter case; remove all but one/);
        for (const id of [first, second, org]) assert.ok(error.message.includes(id), `${id} named in ${error.message}`);
        return true;
      });
      assert.deepEqual(await store.emailsOf(org), before);
      const [applied] = await store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations WHERE name = '018_canonical_contacts.sql'");
      assert.equal(applied!.n, 0);
    });
  });
}

for (const tdb of testDatabases) {
  describe(`bearer secrets leave stored activities (${tdb.name})`, () => {
    const cleanup: Array<() => Promise<void>> = [];
    after(async () => {
      for (const step of cleanup) await step();
    });

    test('a verify_otp V1 token bound to no key becomes "", a code kept in clear "[redacted]"; bound tokens and V2 stay as they were', async () => {
      const db = await storeThrough(tdb, cleanup, '017_vote_in_activity.sql');
      const organizationId = randomUUID();
      const userId = randomUUID();
      await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'secrets']);
      await db.query('INSERT INTO users (id, organization_id, user_name, created_at) VALUES ($1, $2, $3, now())', [userId, organizationId, 'verifier']);
      const bearer = 'eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOiJiZWFyZXIifQ.bearer-signature';
      const code = 'k7q2-m9xh4';
      const otpId = randomUUID();
      const body = (parameters: object) => JSON.stringify({ type: 'ACTIVITY_TYPE_VERIFY_OTP', timestampMs: '1767225600000', organizationId, parameters });
      const rows = [
        // An early V1 activity: the code in clear in the intent and the signed body, the token bound to no key.
        {
          intent: JSON.stringify({ verifyOtpIntent: { otpId, otpCode: code, expirationSeconds: '3600' } }),
          rawBody: body({ otpId, otpCode: code }),
          result: { verifyOtpResult: { verificationToken: bearer } },
        },
        // V1 with publicKey: the token needs that key's signature to log in.
        {
          intent: JSON.stringify({ verifyOtpIntent: { otpId, otpCode: '[redacted]', expirationSeconds: '3600', publicKey: '02ab' } }),
          rawBody: body({ otpId, otpCode: '[redacted]', publicKey: '02AB' }),
          result: { verifyOtpResult: { verificationToken: 'bound.to.key' } },
        },
        // V2 under the V1 type string (what @turnkey/core sends): bound to the bundle's key.
        {
          intent: JSON.stringify({ verifyOtpIntentV2: { otpId, encryptedOtpBundle: '{"x":1}', expirationSeconds: '3600' } }),
          rawBody: body({ otpId, encryptedOtpBundle: '{"x":1}' }),
          result: { verifyOtpResult: { verificationToken: 'bound.to.bundle-key' } },
        },
      ];
      for (const [index, row] of rows.entries()) {
        await db.query(
          `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result,
                                   created_at, updated_at, vote_id, vote_user_id, vote_selection, vote_public_key, vote_signature, vote_scheme, vote_created_at)
           VALUES ($1, $2, 'ACTIVITY_TYPE_VERIFY_OTP', 'ACTIVITY_STATUS_COMPLETED', $3, '1767225600000', $4, 'stamp', $5, $6::jsonb, now(), now(),
                   $7, $8, 'VOTE_SELECTION_APPROVED', '02ab', '3006', 'SIGNATURE_SCHEME_TK_API_P256', now())`,
          [randomUUID(), organizationId, `sha256:${index}`, row.rawBody, row.intent, JSON.stringify(row.result), randomUUID(), userId],
        );
      }

      assert.ok((await migrate(db)).includes('019_bearer_secrets_scrubbed.sql'));
      const stored = async (index: number) => {
        const [row] = await db.query<{ raw_body: string; intent: string; result: string }>(
          'SELECT raw_body, intent, result::text AS result FROM activities WHERE fingerprint = $1',
          [`sha256:${index}`],
        );
        const record = await findActivity(db, { organizationId, fingerprint: `sha256:${index}` });
        return { row: row!, activity: JSON.parse(activityResponseJson(record!, NO_ACCESS)).activity };
      };

      const early = await stored(0);
      for (const text of [early.row.raw_body, early.row.intent, early.row.result, JSON.stringify(early.activity)]) {
        assert.equal(text.includes(bearer), false);
        assert.equal(text.includes(code), false);
      }
      assert.equal(early.activity.result.verifyOtpResult.verificationToken, '');
      assert.deepEqual(early.activity.intent, { verifyOtpIntent: { otpId, otpCode: '[redacted]', expirationSeconds: '3600' } });
      // The rest of the signed body is left byte for byte; the vote's message is that body.
      assert.equal(early.row.raw_body, body({ otpId, otpCode: '[redacted]' }));
      assert.equal(early.activity.votes[0].message, early.row.raw_body);

      for (const index of [1, 2]) {
        const { row, activity } = await stored(index);
        assert.equal(row.raw_body, rows[index]!.rawBody);
        assert.equal(row.intent, rows[index]!.intent);
        assert.deepEqual(activity.result.verifyOtpResult, rows[index]!.result.verifyOtpResult);
      }
    });
  });
}

/** A store migrated through 019, when an activity's vote was kept in its row, with one organization and two users. */
async function storeBeforeVoteTable(tdb: (typeof testDatabases)[number], cleanup: Array<() => Promise<void>>) {
  const db = await storeThrough(tdb, cleanup, '019_bearer_secrets_scrubbed.sql');
  const organizationId = randomUUID();
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'vote table']);
  const user = async (name: string, email: string | null) => {
    const id = randomUUID();
    const at = new Date('2026-03-04T05:06:07.089Z');
    await db.query('INSERT INTO users (id, organization_id, user_name, email, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)', [
      id, organizationId, name, email, at,
    ]);
    return { userId: id, userName: name, userEmail: email, userPhoneNumber: null, userCreatedAt: at, userUpdatedAt: at, userTags: [] as string[], userRemoved: false };
  };
  const createdAt = new Date('2026-05-06T07:08:09.123Z');
  /** An activity as 019 stored it, with the vote in its row or none, and the record this version must read back. */
  const activity = async (index: number, rawBody: string, vote?: { user: Awaited<ReturnType<typeof user>>; message: string | null }) => {
    const id = randomUUID();
    const voteId = randomUUID();
    await db.query(
      `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result,
                               created_at, updated_at, vote_id, vote_user_id, vote_selection, vote_message, vote_public_key, vote_signature, vote_scheme, vote_created_at)
       VALUES ($1, $2, 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', 'ACTIVITY_STATUS_COMPLETED', $3, '1767225600000', $4, 'stamp',
               '{"createSmartContractInterfaceIntent":{"label":"x"}}', '{"createSmartContractInterfaceResult":{"smartContractInterfaceId":"s"}}', $5, $5,
               $6, $7, $8, $9, '02ab', '3006', 'SIGNATURE_SCHEME_TK_API_P256', $5)`,
      [id, organizationId, `sha256:${index}`, rawBody, createdAt, vote ? voteId : null, vote?.user.userId ?? null,
       vote ? 'VOTE_SELECTION_APPROVED' : null, vote?.message ?? null],
    );
    const expected: ActivityRecord = {
      id, organizationId, type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', status: 'ACTIVITY_STATUS_COMPLETED', fingerprint: `sha256:${index}`,
      timestampMs: '1767225600000', rawBody, intentJson: '{"createSmartContractInterfaceIntent":{"label":"x"}}',
      result: { createSmartContractInterfaceResult: { smartContractInterfaceId: 's' } }, createdAt, updatedAt: createdAt,
      votes: vote
        ? [{ id: voteId, ...vote.user, selection: 'VOTE_SELECTION_APPROVED', ...(vote.message === null ? {} : { message: vote.message }),
             publicKey: '02ab', signature: '3006', scheme: 'SIGNATURE_SCHEME_TK_API_P256', createdAt, ...NOT_RECORDED }]
        : [],
    };
    return expected;
  };
  return { db, organizationId, user, activity };
}

for (const tdb of testDatabases) {
  describe(`votes have their own table again (${tdb.name})`, () => {
    const cleanup: Array<() => Promise<void>> = [];
    after(async () => {
      for (const step of cleanup) await step();
    });

    test('every vote of an activity row moves into votes and the activity renders the same answer', async () => {
      const store = await storeBeforeVoteTable(tdb, cleanup);
      const alice = await store.user('alice', 'alice@example.com');
      const bob = await store.user('bob', null);
      const expected = [
        await store.activity(0, '{"signed":"body"}', { user: alice, message: null }),
        await store.activity(1, '{"other":"body"}', { user: bob, message: 'a message of its own' }),
        await store.activity(2, '{}'),
      ];

      assert.ok((await migrate(store.db)).includes('020_votes.sql'));
      for (const [index, record] of expected.entries()) {
        const read = await findActivity(store.db, { organizationId: store.organizationId, fingerprint: `sha256:${index}` });
        assert.equal(activityResponseJson(read!, NO_ACCESS), activityResponseJson(record, NO_ACCESS), `activity ${index}`);
      }
      const votes = await store.db.query<{ activity_id: string; organization_id: string; message: string | null }>(
        'SELECT activity_id, organization_id, message FROM votes ORDER BY message NULLS FIRST',
      );
      assert.deepEqual(votes, [
        { activity_id: expected[0]!.id, organization_id: store.organizationId, message: null },
        { activity_id: expected[1]!.id, organization_id: store.organizationId, message: 'a message of its own' },
      ]);
      const [columns] = await store.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'activities' AND column_name LIKE 'vote%' AND table_schema = current_schema()",
      );
      assert.equal(columns!.n, 0, "the activity row's vote columns are gone");
    });

    test('one approval and one rejection per user and activity at most; several users each vote, read oldest first; an approval or a rejection only', async () => {
      const store = await storeBeforeVoteTable(tdb, cleanup);
      const alice = await store.user('alice', 'alice@example.com');
      const bob = await store.user('bob', null);
      const carol = await store.user('carol', null);
      const record = await store.activity(0, '{"signed":"body"}', { user: alice, message: null });
      await migrate(store.db);
      const vote = (userId: string, selection: string, at: Date, id = randomUUID()) =>
        store.db.query(
          `INSERT INTO votes (id, activity_id, organization_id, user_id, selection, message, public_key, signature, scheme, created_at)
           VALUES ($1, $2, $3, $4, $5, 'another stamp', '03cd', '3007', 'SIGNATURE_SCHEME_TK_API_P256', $6)`,
          [id, record.id, store.organizationId, userId, selection, at],
        );
      await assert.rejects(vote(alice.userId, 'VOTE_SELECTION_APPROVED', new Date()), /votes_activity_id_user_id_selection_key|duplicate key/);
      await assert.rejects(vote(bob.userId, 'VOTE_SELECTION_MAYBE', new Date()), /votes_selection_check|check constraint/);
      // Two votes of one moment are read in the order of their ids.
      const later = new Date(record.createdAt.getTime() + 1000);
      const ids = [randomUUID(), randomUUID()].sort().reverse();
      await vote(carol.userId, 'VOTE_SELECTION_REJECTED', later, ids[0]);
      await vote(bob.userId, 'VOTE_SELECTION_APPROVED', later, ids[1]);
      const read = await findActivity(store.db, { organizationId: store.organizationId, id: record.id });
      const other = { message: 'another stamp', publicKey: '03cd', signature: '3007', scheme: 'SIGNATURE_SCHEME_TK_API_P256', createdAt: later, ...NOT_RECORDED };
      const votes = [
        ...record.votes,
        { id: ids[1]!, ...bob, selection: 'VOTE_SELECTION_APPROVED', ...other },
        { id: ids[0]!, ...carol, selection: 'VOTE_SELECTION_REJECTED', ...other },
      ];
      assert.equal(activityResponseJson(read!, NO_ACCESS), activityResponseJson({ ...record, votes }, NO_ACCESS));
    });
  });
}

for (const tdb of testDatabases) {
  describe(`every organization gets a root quorum (${tdb.name})`, () => {
    const cleanup: Array<() => Promise<void>> = [];
    after(async () => {
      for (const step of cleanup) await step();
    });

    test('its first user alone, threshold 1: the oldest (then by id), not removed when it has one; none for an organization without users', async () => {
      // Through 020 so that whichever later migrations exist run on these rows.
      const db = await storeThrough(tdb, cleanup, '020_votes.sql');
      const organization = async (name: string) => {
        const id = randomUUID();
        await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, name]);
        return id;
      };
      const user = async (organizationId: string, created: string, removed = false, id = randomUUID()) => {
        await db.query('INSERT INTO users (id, organization_id, user_name, created_at, updated_at, removed_at) VALUES ($1, $2, $3, $4, $4, $5)', [
          id, organizationId, 'u', new Date(created), removed ? new Date() : null,
        ]);
        return id;
      };
      const team = await organization('team');
      await user(team, '2026-01-01T00:00:00Z', true); // the oldest, removed
      const [low, high] = [randomUUID(), randomUUID()].sort();
      await user(team, '2026-01-02T00:00:00Z', false, high);
      await user(team, '2026-01-02T00:00:00Z', false, low); // same moment, the lower id first
      await user(team, '2026-01-03T00:00:00Z');
      const allRemoved = await organization('all removed');
      await user(allRemoved, '2026-02-02T00:00:00Z', true);
      const firstRemoved = await user(allRemoved, '2026-02-01T00:00:00Z', true);
      const empty = await organization('empty');

      assert.ok((await migrate(db)).includes('022_root_quorum.sql'));
      const quorum = async (organizationId: string) => {
        const [row] = await db.query<{ threshold: number }>('SELECT threshold FROM root_quorums WHERE organization_id = $1', [organizationId]);
        const members = await db.query<{ user_id: string }>('SELECT user_id FROM root_quorum_members WHERE organization_id = $1', [organizationId]);
        return { threshold: row?.threshold, userIds: members.map((m) => m.user_id) };
      };
      assert.deepEqual(await quorum(team), { threshold: 1, userIds: [low] });
      assert.deepEqual(await quorum(allRemoved), { threshold: 1, userIds: [firstRemoved] });
      assert.deepEqual(await quorum(empty), { threshold: 1, userIds: [] });
      const [counts] = await db.query<{ quorums: number; organizations: number }>(
        'SELECT (SELECT count(*)::int FROM root_quorums) AS quorums, (SELECT count(*)::int FROM organizations) AS organizations',
      );
      assert.deepEqual(counts, { quorums: 3, organizations: 3 });
    });

    test('032: a key registered twice in one tree (an app and its sub-organizations) keeps its oldest registration; the later one is revoked and found by no lookup', async () => {
      const db = await storeThrough(tdb, cleanup, '030_vote_webauthn.sql');
      const organization = async (parentId: string | null = null) => {
        const id = randomUUID();
        await db.query('INSERT INTO organizations (id, name, parent_id) VALUES ($1, $2, $3)', [id, 'org', parentId]);
        const userId = randomUUID();
        await db.query('INSERT INTO users (id, organization_id, user_name) VALUES ($1, $2, $3)', [userId, id, 'u']);
        return { id, userId };
      };
      const key = async (owner: { id: string; userId: string }, publicKey: string, created: string) => {
        const id = randomUUID();
        await db.query('INSERT INTO api_keys (id, organization_id, user_id, name, public_key, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          id, owner.id, owner.userId, 'k', publicKey, new Date(created),
        ]);
        return id;
      };
      const [app, otherApp] = [await organization(), await organization()];
      const [alice, bob] = [await organization(app.id), await organization(app.id)];
      const appKey = `02${'a'.repeat(64)}`;
      const aliceKey = `03${'b'.repeat(64)}`;
      const appsOwn = await key(app, appKey, '2026-01-01T00:00:00Z');
      const copied = await key(alice, appKey, '2026-02-01T00:00:00Z'); // the end user's copy of its app's key
      const alices = await key(alice, aliceKey, '2026-01-05T00:00:00Z');
      const bobsCopy = await key(bob, aliceKey, '2026-01-06T00:00:00Z'); // a sibling's: both reach the app (whoami)
      const elsewhere = await key(otherApp, appKey, '2026-03-01T00:00:00Z'); // another tree

      assert.ok((await migrate(db)).includes('032_one_key_one_principal.sql'));
      const rows = await db.query<{ id: string; tree_id: string | null; revoked: boolean }>('SELECT id, tree_id, revoked_at IS NOT NULL AS revoked FROM api_keys');
      const state = Object.fromEntries(rows.map((r) => [r.id, { tree: r.tree_id, revoked: r.revoked }]));
      assert.deepEqual(state[appsOwn], { tree: app.id, revoked: false });
      assert.deepEqual(state[copied], { tree: null, revoked: true });
      assert.deepEqual(state[alices], { tree: app.id, revoked: false });
      assert.deepEqual(state[bobsCopy], { tree: null, revoked: true });
      assert.deepEqual(state[elsewhere], { tree: otherApp.id, revoked: false });
      assert.deepEqual((await findApiKeysByPublicKey(db, appKey)).map((k) => k.id), [appsOwn, elsewhere]);
      assert.deepEqual((await findApiKeysByPublicKey(db, aliceKey)).map((k) => k.id), [alices]);
      // A key written after takes its tree from its organization; a second one in the tree is refused by the index.
      const later = await key(bob, `02${'c'.repeat(64)}`, '2026-04-01T00:00:00Z');
      assert.equal((await db.query<{ tree_id: string }>('SELECT tree_id FROM api_keys WHERE id = $1', [later]))[0]!.tree_id, app.id);
      await assert.rejects(key(app, `02${'c'.repeat(64)}`, '2026-04-02T00:00:00Z'), /api_keys_tree_public_key/);
    });
  });
}

for (const tdb of testDatabases) {
  describe(`contacts proven for their user (031, ${tdb.name})`, () => {
    const cleanup: Array<() => Promise<void>> = [];
    after(async () => {
      for (const step of cleanup) await step();
    });

    test('a verified moment stays only where a token proved that contact for that user; one a code in the parent spread is cleared', async () => {
      const db = await storeThrough(tdb, cleanup, '030_vote_webauthn.sql');
      const at = (minutes: number) => new Date(Date.UTC(2026, 5, 1, 12, minutes));
      const parent = randomUUID();
      await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [parent, 'app']);
      const organization = async () => {
        const id = randomUUID();
        await db.query('INSERT INTO organizations (id, name, parent_id) VALUES ($1, $2, $3)', [id, 'sub', parent]);
        return id;
      };
      const user = async (organizationId: string, u: { email?: string; phone?: string; created: Date; updated?: Date; emailAt?: Date; phoneAt?: Date }) => {
        const id = randomUUID();
        await db.query(
          `INSERT INTO users (id, organization_id, user_name, email, phone_number, created_at, updated_at, email_verified_at, phone_number_verified_at)
           VALUES ($1, $2, 'u', $3, $4, $5, $6, $7, $8)`,
          [id, organizationId, u.email ?? null, u.phone ?? null, u.created, u.updated ?? u.created, u.emailAt ?? null, u.phoneAt ?? null],
        );
        return id;
      };
      let fingerprints = 0;
      /** An activity of `organizationId` at `moment`, and the use of a token it recorded. */
      const activityWithToken = async (organizationId: string, type: string, usage: string, moment: Date, intent: object, result: object) => {
        const id = randomUUID();
        await db.query(
          `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result, created_at, updated_at)
           VALUES ($1, $2, $3, 'ACTIVITY_STATUS_COMPLETED', $4, '0', '{}', 'stamp', $5, $6::jsonb, $7, $7)`,
          [id, organizationId, type, `sha256:${++fingerprints}`, JSON.stringify(intent), JSON.stringify(result), moment],
        );
        await db.query('INSERT INTO verification_token_uses (token_id, usage, organization_id, activity_id, expires_at, used_at) VALUES ($1, $2, $3, $4, $5, $5)', [
          randomUUID(), usage, organizationId, id, moment,
        ]);
      };
      const signUp = async (moment: Date, users: Array<Parameters<typeof user>[1]>) => {
        const sub = await organization();
        const ids = [];
        for (const u of users) ids.push(await user(sub, u));
        await activityWithToken(parent, 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', 'signup', moment, {}, { createSubOrganizationResultV8: { subOrganizationId: sub, rootUserIds: ids } });
        return ids;
      };

      // Signed up with a token, its moment still the creation's: kept.
      const [atCreation] = await signUp(at(0), [{ email: 'a@example.com', created: at(0), emailAt: at(0) }]);
      // Signed up with a token, its only root user, only an email, never changed; a code in the parent moved its moment: kept.
      const [movedSince] = await signUp(at(1), [{ email: 'b@example.com', created: at(1), emailAt: at(30) }]);
      // Two root users: the token named the one marked at creation; the other was marked later by a code in the parent: cleared.
      const [named, other] = await signUp(at(2), [
        { email: 'c@example.com', created: at(2), emailAt: at(2) },
        { email: 'victim@example.com', created: at(2), emailAt: at(31) },
      ]);
      // The only root user, but changed since (an email typed without a token, then marked by the owner's code): cleared.
      const [changed] = await signUp(at(3), [{ email: 'victim@example.com', created: at(3), updated: at(10), emailAt: at(31) }]);
      // Both contacts, the moment of one moved: which one the token named is not known, so that one is cleared.
      const [both] = await signUp(at(4), [{ email: 'd@example.com', phone: '+12125550100', created: at(4), emailAt: at(4), phoneAt: at(32) }]);
      // Created without a token, marked by a code checked in the parent: cleared.
      const copy = await user(await organization(), { email: 'victim@example.com', created: at(5), emailAt: at(31) });
      // update_user_email / update_user_phone_number with a token, the user's last change: kept.
      const changedSub = await organization();
      const proved = await user(changedSub, { email: 'e@example.com', phone: '+12125550101', created: at(6), updated: at(7), emailAt: at(7), phoneAt: at(7) });
      await activityWithToken(changedSub, 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', 'contact', at(7), { updateUserEmailIntent: { userId: proved.toUpperCase(), userEmail: 'e@example.com' } }, {});
      // ...changed again after it (its phone number, without a token), then marked by a code in the parent: cleared.
      const provedThenChanged = await user(changedSub, { phone: '+12125550102', created: at(6), updated: at(9), phoneAt: at(33) });
      await activityWithToken(changedSub, 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', 'contact', at(8), { updateUserPhoneNumberIntent: { userId: provedThenChanged, userPhoneNumber: '+12125550102' } }, {});

      assert.ok((await migrate(db)).includes('031_proven_contacts.sql'));
      const moments = async (id: string) => {
        const [row] = await db.query<{ e: Date | null; p: Date | null }>('SELECT email_verified_at AS e, phone_number_verified_at AS p FROM users WHERE id = $1', [id]);
        return [row!.e, row!.p];
      };
      assert.deepEqual(await moments(atCreation!), [at(0), null]);
      assert.deepEqual(await moments(movedSince!), [at(30), null]);
      assert.deepEqual(await moments(named!), [at(2), null]);
      assert.deepEqual(await moments(other!), [null, null]);
      assert.deepEqual(await moments(changed!), [null, null]);
      assert.deepEqual(await moments(both!), [at(4), null]);
      assert.deepEqual(await moments(copy), [null, null]);
      assert.deepEqual(await moments(proved), [at(7), null]);
      assert.deepEqual(await moments(provedThenChanged), [null, null]);
    });
  });
}

for (const tdb of testDatabases) {
  describe(`foreign keys of an activity's rows (033, ${tdb.name})`, () => {
    const cleanup: Array<() => Promise<void>> = [];
    after(async () => {
      for (const step of cleanup) await step();
    });

    /** A store migrated through 032, without the keys, holding one organization, user and activity with its vote. */
    async function storeBeforeKeys() {
      const db = await storeThrough(tdb, cleanup, '032_one_key_one_principal.sql');
      const organizationId = randomUUID();
      const userId = randomUUID();
      await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'keys']);
      await db.query('INSERT INTO users (id, organization_id, user_name) VALUES ($1, $2, $3)', [userId, organizationId, 'voter']);
      let fingerprints = 0;
      const activity = async (organization = organizationId) => {
        const id = randomUUID();
        await db.query(
          `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result, created_at, updated_at)
           VALUES ($1, $2, 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', 'ACTIVITY_STATUS_COMPLETED', $3, '1', '{}', 'stamp', '{}', '{}', now(), now())`,
          [id, organization, `sha256:${++fingerprints}`],
        );
        return id;
      };
      const vote = (activityId: string, user = userId) =>
        db.query(
          `INSERT INTO votes (id, activity_id, organization_id, user_id, selection, public_key, signature, scheme, created_at)
           VALUES ($1, $2, $3, $4, 'VOTE_SELECTION_APPROVED', '02ab', '3006', 'SIGNATURE_SCHEME_TK_API_P256', now())`,
          [randomUUID(), activityId, organizationId, user],
        );
      await vote(await activity());
      const keyCount = async () =>
        (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace"))[0]!.n;
      return { db, organizationId, activity, vote, keyCount };
    }

    test('a store as Signet wrote it gains every key, validated; the rows it held stay', async () => {
      const store = await storeBeforeKeys();
      const before = await store.keyCount();
      assert.deepEqual(await migrate(store.db, { through: '033_foreign_keys_back.sql' }), ['033_foreign_keys_back.sql']);
      assert.equal(await store.keyCount(), before + 12);
      const [unvalidated] = await store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND NOT convalidated AND connamespace = current_schema()::regnamespace");
      assert.equal(unvalidated!.n, 0);
      const [votes] = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM votes');
      assert.equal(votes!.n, 1);
    });

    test('rows that name nothing (no version of Signet writes one: a hand edit, a partial restore) stop the upgrade, each kind counted and named, and the store is left as it was', async () => {
      const store = await storeBeforeKeys();
      const goneUser = randomUUID();
      const goneOrganization = randomUUID();
      const activityId = await store.activity();
      await store.vote(activityId, goneUser);
      await store.vote(randomUUID());
      await store.activity(goneOrganization);
      const before = await store.keyCount();
      await assert.rejects(migrate(store.db), (error: Error) => {
        assert.ok(error instanceof MigrationFailed);
        assert.equal(error.migration, '033_foreign_keys_back.sql');
        assert.match(error.message, /votes: 1 rows whose user_id is in no row of users \(user_id [0-9a-f-]{36}, for one\)/);
        assert.match(error.message, /votes: 1 rows whose activity_id is in no row of activities/);
        assert.match(error.message, /activities: 1 rows whose organization_id is in no row of organizations/);
        for (const id of [goneUser, goneOrganization]) assert.ok(error.message.includes(id), `${id} named in ${error.message}`);
        assert.match(error.message, /restore what they name or delete them, then upgrade/);
        return true;
      });
      assert.equal(await store.keyCount(), before);
      assert.equal((await migrationStatus(store.db)).pending[0], '033_foreign_keys_back.sql');
      const [votes] = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM votes');
      assert.equal(votes!.n, 3);

      // Once they are gone, the upgrade goes through.
      await store.db.query('DELETE FROM votes WHERE user_id = $1 OR activity_id NOT IN (SELECT id FROM activities)', [goneUser]);
      await store.db.query('DELETE FROM activities WHERE organization_id = $1', [goneOrganization]);
      assert.deepEqual(await migrate(store.db, { through: '033_foreign_keys_back.sql' }), ['033_foreign_keys_back.sql']);
    });
  });
}

// Every pending migration runs in one transaction (migrate.ts): a failure leaves the store as it was,
// and `signet migrate --dry-run` is that transaction rolled back. PostgreSQL refuses some statements
// inside a transaction block; no migration may hold one (an index is built with a plain CREATE INDEX).
test('no migration holds a statement PostgreSQL refuses inside a transaction', () => {
  const refused = /\b(CONCURRENTLY|VACUUM|ALTER\s+SYSTEM|CREATE\s+DATABASE|DROP\s+DATABASE|CREATE\s+TABLESPACE|REINDEX\s+(SYSTEM|DATABASE))\b|\b(COMMIT|ROLLBACK)\s*;/i;
  const names = migrationNames();
  assert.ok(names.length > 20);
  for (const name of names) {
    const sql = migrationSql(name).replace(/--[^\n]*/g, '');
    assert.doesNotMatch(sql, refused, `${name} cannot run inside the one transaction of every pending migration`);
  }
});

for (const tdb of testDatabases) {
  describe(`migration status and dry run (${tdb.name})`, () => {
    const cleanup: Array<() => Promise<void>> = [];
    after(async () => {
      for (const step of cleanup) await step();
    });

    test('a new store: nothing applied, every migration pending; a dry run applies them all and leaves no table behind', async () => {
      const db = await storeThrough(tdb, cleanup, '000'); // none applied (only schema_migrations made)
      const tables = () => db.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1");
      assert.deepEqual(await tables(), [{ table_name: 'schema_migrations' }]);
      assert.deepEqual(await migrationStatus(db), { applied: [], pending: migrationNames() });
      assert.deepEqual(await dryRunMigrations(db), migrationNames());
      assert.deepEqual(await tables(), [{ table_name: 'schema_migrations' }]);
      assert.deepEqual((await migrationStatus(db)).pending, migrationNames());
    });

    test('an older store: the applied ones with when, the rest pending; the dry run changes nothing, migrate then applies the same', async () => {
      const db = await storeThrough(tdb, cleanup, '020_votes.sql');
      const names = migrationNames();
      const later = names.filter((n) => n > '020_votes.sql');
      const before = await migrationStatus(db);
      assert.deepEqual(before.applied.map((m) => m.name), names.filter((n) => n <= '020_votes.sql'));
      assert.ok(before.applied.every((m) => m.appliedAt instanceof Date && m.known));
      assert.deepEqual(before.pending, later);
      assert.deepEqual(await dryRunMigrations(db), later);
      assert.deepEqual(await migrationStatus(db), before);
      assert.equal((await db.query("SELECT to_regclass('user_tags') AS t"))[0]!.t, null, 'the dry run left no table of 021');
      assert.deepEqual(await migrate(db), later);
      assert.deepEqual((await migrationStatus(db)).pending, []);
      assert.deepEqual(await dryRunMigrations(db), []);
    });

    test('a migration that would fail is named, with the error, and the store stays as it was; one applied by a newer version is marked', async () => {
      const db = await storeThrough(tdb, cleanup, '020_votes.sql');
      // A table in the way of 021's makes it fail.
      await db.query('CREATE TABLE user_tags (in_the_way int)');
      await db.query("INSERT INTO schema_migrations (name) VALUES ('999_from_a_newer_version.sql')");
      const before = await migrationStatus(db);
      await assert.rejects(dryRunMigrations(db), (error: unknown) => {
        assert.ok(error instanceof MigrationFailed);
        assert.equal(error.migration, '021_user_tags.sql');
        assert.match(error.message, /^migration 021_user_tags\.sql failed: .*user_tags.* already exists/);
        return true;
      });
      await assert.rejects(migrate(db), /migration 021_user_tags\.sql failed: .*already exists.*; nothing was applied/);
      assert.deepEqual(await migrationStatus(db), before);
      assert.deepEqual(before.applied.at(-1), { name: '999_from_a_newer_version.sql', appliedAt: before.applied.at(-1)!.appliedAt, known: false });
    });
  });
}
