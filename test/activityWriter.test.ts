// Group commit: activities that are ready while a write is running are written together in one
// statement, each with its own checks and outcome. On both stores: how writes are grouped (counted
// statements), that nothing is lost or written twice, that a refusal or a unique conflict in one
// write does not decide another's, and the same through HTTP with the ecosystem's client.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { findActivity, findActivityFor, listActivitiesFor, NEW_ACTIVITY, writeActivity, type ActivityWrite, type WriteOutcome } from '../src/store/activities.ts';
import { ActivityWriter } from '../src/store/activityWriter.ts';
import pg from 'pg';
import { DatabaseUnavailable } from '../src/errors.ts';
import { openDatabase, type Database } from '../src/store/db.ts';
import { insertSmartContractInterface } from '../src/store/smartContractInterfaces.ts';
import { testDatabases, urlWithSchema } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ABI = '[{"type":"function","name":"totalSupply","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint256"}]}]';

/** A new create_smart_contract_interface write for the organization, as the engine composes it. */
function contractWrite(org: Credentials, options: { body?: string; interfaceId?: string; apiKeyId?: string } = {}): ActivityWrite {
  const now = new Date();
  const id = randomUUID();
  const body = options.body ?? JSON.stringify({ type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', organizationId: org.organizationId, nonce: id });
  const interfaceId = options.interfaceId ?? randomUUID();
  return {
    activity: {
      id,
      organizationId: org.organizationId,
      type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
      status: 'ACTIVITY_STATUS_COMPLETED',
      fingerprint: `sha256:${createHash('sha256').update(body).digest('hex')}`,
      timestampMs: String(now.getTime()),
      rawBody: body,
      stampHeader: '{}',
      intentJson: '{"createSmartContractInterfaceIntent":{}}',
      result: { createSmartContractInterfaceResult: { smartContractInterfaceId: interfaceId } },
      createdAt: now,
    },
    vote: {
      id: randomUUID(),
      userId: org.userId,
      selection: 'VOTE_SELECTION_APPROVED',
      publicKey: org.apiPublicKey,
      signature: '00',
      scheme: 'SIGNATURE_SCHEME_TK_API_P256',
      credentialType: 'CREDENTIAL_TYPE_API_KEY_P256',
      credentialId: options.apiKeyId ?? org.apiKeyId,
      webauthnCredentialId: null,
      authenticatorData: null,
      clientDataJson: null,
      policyEvaluations: [],
    },
    credential: { kind: 'apiKey', apiKeyId: options.apiKeyId ?? org.apiKeyId, now },
    authorityVersion: '0',
    guards: [],
    gates: [],
    rows: [
      insertSmartContractInterface(NEW_ACTIVITY, {
        id: interfaceId,
        organizationId: org.organizationId,
        smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
        smartContractInterface: ABI,
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label: `writer ${id}`,
        notes: '',
        digest: `sha256:${createHash('sha256').update(ABI).digest('hex')}`,
        createdAt: now,
      }),
    ],
  };
}

/** The store, counting the statements sent through it. */
function counting(db: Database): Database & { statements: number } {
  const counted = {
    kind: db.kind,
    statements: 0,
    query<T>(text: string, params?: unknown[]) {
      counted.statements += 1;
      return db.query<T>(text, params);
    },
    exec: (text: string) => db.exec(text),
    transaction: db.transaction.bind(db),
    close: () => db.close(),
  };
  return counted;
}

for (const tdb of testDatabases) {
  describe(`group commit of new activities (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      server = await startTestServer(tdb);
      org = await server.createOrganization('Writer Org');
    });
    after(() => server?.close());

    async function stored(activityIds: string[]): Promise<{ activities: number; interfaces: number }> {
      const [row] = await server.db.query<{ activities: number; interfaces: number }>(
        `SELECT (SELECT count(*)::int FROM activities WHERE id = ANY($1::uuid[])) AS activities,
                (SELECT count(*)::int FROM smart_contract_interfaces WHERE activity_id = ANY($1::uuid[])) AS interfaces`,
        [activityIds],
      );
      return row!;
    }

    /** The votes stored for these activities: the submitter's, written by the activity's statement. */
    async function votesOf(activityIds: string[]): Promise<number> {
      const [row] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM votes WHERE activity_id = ANY($1::uuid[])', [activityIds]);
      return row!.n;
    }

    test('writes ready while one runs share statements (4, 2, 1 after the first); each is created once', async () => {
      const db = counting(server.db);
      const writer = new ActivityWriter(db);
      const writes = Array.from({ length: 8 }, () => contractWrite(org));
      const outcomes = await Promise.all(writes.map((write) => writer.write(write)));
      assert.deepEqual(outcomes, writes.map(() => ({ kind: 'created', userTags: [] })));
      assert.equal(db.statements, 4);
      assert.deepEqual(await stored(writes.map((w) => w.activity.id)), { activities: 8, interfaces: 8 });
      assert.equal(await votesOf(writes.map((w) => w.activity.id)), 8, 'each with its vote, in the same statements');
    });

    test('a unique value taken twice in one statement: nothing of it stays, and each write is answered on its own', async () => {
      const db = counting(server.db);
      const writer = new ActivityWriter(db);
      const first = contractWrite(org);
      const shared = randomUUID();
      const [a, b, c, d] = [contractWrite(org, { interfaceId: shared }), contractWrite(org, { interfaceId: shared }), contractWrite(org), contractWrite(org)];
      const outcomes = await Promise.all([first, a!, b!, c!, d!].map((write) => writer.write(write)));
      // The batch of four failed whole on the second interface row; written again one by one, the
      // first of the pair is created and the second meets the unique index.
      assert.equal(db.statements, 1 + 1 + 4);
      const kinds = outcomes.map((outcome) => outcome.kind);
      assert.deepEqual(kinds.filter((kind) => kind === 'created').length, 4);
      assert.deepEqual(kinds.filter((kind) => kind === 'conflict').length, 1);
      const loser = [a!, b!][kinds.slice(1, 3).indexOf('conflict')]!;
      assert.deepEqual(await stored([first, a!, b!, c!, d!].map((w) => w.activity.id)), { activities: 4, interfaces: 4 });
      assert.deepEqual(await stored([loser.activity.id]), { activities: 0, interfaces: 0 });
      assert.equal(await votesOf([first, a!, b!, c!, d!].map((w) => w.activity.id)), 4, 'no vote of the refused write');
    });

    test('the same body twice among waiting writes: the second waits for a later statement and gets the first activity', async () => {
      const writer = new ActivityWriter(server.db);
      const body = JSON.stringify({ type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', organizationId: org.organizationId, nonce: randomUUID() });
      const [blocker, original, again, other] = [contractWrite(org), contractWrite(org, { body }), contractWrite(org, { body }), contractWrite(org)];
      const outcomes = await Promise.all([blocker!, original!, again!, other!].map((write) => writer.write(write)));
      assert.deepEqual(outcomes.map((outcome) => outcome.kind), ['created', 'created', 'existing', 'created']);
      const existing = outcomes[2] as Extract<WriteOutcome, { kind: 'existing' }>;
      assert.equal(existing.activity.id, original!.activity.id);
      assert.equal(existing.activity.votes.length, 1, 'read with its vote in the same statement');
      assert.deepEqual(await stored([original!.activity.id, again!.activity.id]), { activities: 1, interfaces: 1 });
    });

    test('an activity and its vote are one statement to write, and each read of it with its votes one more', async () => {
      const db = counting(server.db);
      const write = contractWrite(org);
      assert.deepEqual(await writeActivity(db, write), { kind: 'created', userTags: [] });
      assert.equal(db.statements, 1, 'the activity and its vote');
      const { id, organizationId, fingerprint } = write.activity;
      const credential = { kind: 'apiKey' as const, apiKeyId: org.apiKeyId, now: new Date() };
      const reads = [
        (await findActivity(db, { organizationId, fingerprint }))!,
        (await findActivityFor(db, credential, { organizationId, id })).activity!,
        (await listActivitiesFor(db, credential, { organizationId, limit: 1, maxBytes: 1 << 20 })).page!.rows[0]!,
      ];
      const again = await writeActivity(db, { ...contractWrite(org, { body: write.activity.rawBody }) });
      assert.equal(db.statements, 5, 'one per read, and the resubmission answered by its own write statement');
      assert.equal(again.kind, 'existing');
      for (const read of [...reads, (again as Extract<WriteOutcome, { kind: 'existing' }>).activity]) {
        assert.equal(read.id, id);
        assert.deepEqual(read.votes.map((vote) => [vote.id, vote.userId, vote.selection]), [[write.vote.id, org.userId, 'VOTE_SELECTION_APPROVED']]);
      }
    });

    test('a credential refused in a shared statement refuses its own write only', async () => {
      const db = counting(server.db);
      const writer = new ActivityWriter(db);
      const revoked = await server.createOrganization('Writer Revoked Org');
      await server.admin('DELETE', `/organizations/${revoked.organizationId}/api-keys/${revoked.apiKeyId}`);
      const writes = [contractWrite(org), contractWrite(org), contractWrite(revoked), contractWrite(org)];
      const outcomes = await Promise.all([contractWrite(org), ...writes].map((write) => writer.write(write)));
      assert.equal(db.statements, 2);
      assert.deepEqual(outcomes.map((outcome) => outcome.kind), ['created', 'created', 'created', 'credentialRefused', 'created']);
      const refused = outcomes[3] as Extract<WriteOutcome, { kind: 'credentialRefused' }>;
      assert.ok(refused.state.revokedAt instanceof Date);
      assert.deepEqual(await stored([writes[2]!.activity.id]), { activities: 0, interfaces: 0 });
    });

    test(
      'a shared statement that runs out of time rejects each of its writes as unavailable, and writes none',
      { skip: tdb.url ? false : 'needs a second connection holding a lock: PostgreSQL only' },
      async () => {
        const schema = (server.db as { schema?: string }).schema!;
        // Another session holds the interfaces table, so every insert into it waits past the bound.
        const holder = new pg.Client({ connectionString: urlWithSchema(tdb.url!, schema) });
        await holder.connect();
        const impatient = await openDatabase({ url: tdb.url!, schema, timeoutMs: 300 });
        try {
          await holder.query('BEGIN');
          await holder.query('LOCK TABLE smart_contract_interfaces IN ACCESS EXCLUSIVE MODE');
          const db = counting(impatient);
          const writer = new ActivityWriter(db);
          const writes = Array.from({ length: 5 }, () => contractWrite(org));
          const settled = await Promise.allSettled(writes.map((write) => writer.write(write)));
          assert.equal(db.statements, 2, 'the first alone, then the four that waited, together');
          for (const result of settled) {
            assert.equal(result.status, 'rejected');
            assert.ok(result.reason instanceof DatabaseUnavailable && result.reason.timedOut, String(result.reason));
          }
          await holder.query('ROLLBACK');
          assert.deepEqual(await stored(writes.map((w) => w.activity.id)), { activities: 0, interfaces: 0 });
        } finally {
          await holder.end();
          await impatient.close();
        }
      },
    );

    test('through HTTP: forty concurrent new activities, each answered with its own, none lost or doubled', async () => {
      const client = server.client(org);
      const labels = Array.from({ length: 40 }, (_, i) => `concurrent ${i} ${randomUUID()}`);
      const answers = await Promise.all(
        labels.map((label) =>
          client.createSmartContractInterface({
            type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
            timestampMs: String(Date.now()),
            organizationId: org.organizationId,
            parameters: {
              smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
              smartContractInterface: ABI,
              type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
              label,
            },
          }),
        ),
      );
      const ids = answers.map((answer) => answer.activity.id);
      assert.equal(new Set(ids).size, 40);
      for (const [i, answer] of answers.entries()) {
        assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
        assert.equal(JSON.parse(answer.activity.votes[0]!.message).parameters.label, labels[i]);
      }
      const rows = await server.db.query<{ activity_id: string; label: string }>(
        'SELECT activity_id, label FROM smart_contract_interfaces WHERE activity_id = ANY($1::uuid[])',
        [ids],
      );
      assert.equal(rows.length, 40);
      const labelOf = new Map(rows.map((row) => [row.activity_id, row.label]));
      ids.forEach((id, i) => assert.equal(labelOf.get(id), labels[i]));
      const interfaceIds = answers.map((answer) => answer.activity.result.createSmartContractInterfaceResult?.smartContractInterfaceId);
      assert.equal(new Set(interfaceIds).size, 40);
    });
  });
}
