// get_mfa_status through @turnkey/http's own getMfaStatus: an activity of the organization has no MFA
// statuses (Signet has no MFA policies), with or without userId; an unknown activity, or another
// organization's, is a 404; a malformed id is a 400 naming the field.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { testDatabases } from './support/databases.ts';
import { postStamped } from './support/http.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

for (const tdb of testDatabases) {
  describe(`get_mfa_status (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let other: Credentials;
    let activityId: string;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Mfa');
      other = await server.createOrganization('Other');
      const { activity } = (await server.client(org).createUserTag({
        type: 'ACTIVITY_TYPE_CREATE_USER_TAG',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { userTagName: 'any', userIds: [] },
      })) as any;
      activityId = activity.id;
    });
    after(() => server.close());

    test("an activity of the organization: no MFA statuses, for every user or one", async () => {
      const client = server.client(org);
      assert.deepEqual(await client.getMfaStatus({ organizationId: org.organizationId, activityId }), { mfaStatuses: [] });
      assert.deepEqual(await client.getMfaStatus({ organizationId: org.organizationId, activityId, userId: org.userId }), { mfaStatuses: [] });
    });

    test("an unknown activity, or another organization's, is a 404; a malformed id a 400 naming the field", async () => {
      const unknown = randomUUID();
      await assert.rejects(server.client(org).getMfaStatus({ organizationId: org.organizationId, activityId: unknown }), (error: any) => {
        assert.equal(error.code, 5);
        assert.match(String(error.message), new RegExp(`no activity ${unknown} in organization ${org.organizationId}`));
        return true;
      });
      await assert.rejects(server.client(other).getMfaStatus({ organizationId: other.organizationId, activityId }), (error: any) => {
        assert.equal(error.code, 5);
        return true;
      });
      for (const [body, field] of [
        [{ activityId: 'nope' }, 'activityId'],
        [{ activityId, userId: 'someone' }, 'userId'],
        [{}, 'activityId'],
      ] as const) {
        const answer = await postStamped(server.baseUrl, '/public/v1/query/get_mfa_status', JSON.stringify({ organizationId: org.organizationId, ...body }), org);
        assert.equal(answer.status, 400, answer.text);
        assert.ok(JSON.stringify(answer.json.details).includes(`"field":"${field}"`), answer.text);
      }
    });
  });
}
