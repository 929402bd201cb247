// Every error answer says why in a stable reason (a TurnkeyErrorDetail's turnkeyErrorCode): the table
// of src/errors.ts is what the OpenAPI document and docs/api.md list, and real answers over HTTP carry
// the reason of their cause.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { activityHandlers } from '../src/activities/registry.ts';
import { grpcCodeOf, REASONS, reasonsOfStatus, reasonTable, type Reason } from '../src/errors.ts';
import { BODY_LIMIT_BYTES } from '../src/http/app.ts';
import { buildOpenApi, ERROR_STATUSES } from '../src/http/openapi.ts';
import { queryHandlers } from '../src/queries/registry.ts';
import { testDatabases } from './support/databases.ts';
import { post, postStamped, type Answer } from './support/http.ts';
import { ROOT } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ALL = Object.keys(REASONS) as Reason[];
const DETAIL = 'type.googleapis.com/errors.v1.TurnkeyErrorDetail';

/** The reasons a description names, as `REASON` in code spans. */
const named = (description: string) => [...description.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!);

describe('the reasons table and what documents it', () => {
  const document = buildOpenApi(activityHandlers, queryHandlers, 'test') as any;

  test('each reason has an UPPER_SNAKE name, an error status and a one-line meaning', () => {
    for (const reason of ALL) {
      assert.match(reason, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      assert.ok(REASONS[reason].status >= 400 && REASONS[reason].status < 600, reason);
      assert.ok(!REASONS[reason].meaning.includes('\n') && REASONS[reason].meaning.length > 10, reason);
    }
  });

  test('the Error schema enumerates exactly the reasons of the table', () => {
    assert.deepEqual(document.components.schemas.TurnkeyErrorDetail.properties.turnkeyErrorCode.enum, ALL);
    const items = document.components.schemas.Error.properties.details.items;
    assert.ok(JSON.stringify(items).includes('#/components/schemas/TurnkeyErrorDetail'));
  });

  test("each status's error response lists its reasons, every reason is listed, and none that is not in the table", () => {
    const statuses = [...new Set(ALL.map((reason) => String(REASONS[reason].status)))].sort();
    assert.deepEqual([...ERROR_STATUSES].sort(), statuses);
    const documented: string[] = [];
    for (const status of ERROR_STATUSES) {
      const listed = named(document.components.responses[`Error${status}`].description);
      assert.deepEqual(listed, reasonsOfStatus(Number(status)), status);
      documented.push(...listed);
    }
    assert.deepEqual(documented.sort(), [...ALL].sort());
    // A route's own wording of a status (e.g. its 404) still lists that status's reasons; an
    // activity's lists those its handlers may give (test/declarations.test.ts).
    for (const [where, methods] of Object.entries<any>(document.paths)) {
      if (where.startsWith('/public/v1/submit/')) continue;
      for (const operation of Object.values<any>(methods)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) < 400 || response.$ref || (where === '/readyz' && status === '503')) continue;
          assert.deepEqual(named(response.description).filter((name) => name in REASONS), reasonsOfStatus(Number(status)), `${where} ${status}`);
        }
      }
    }
  });

  test("docs/api.md's table of reasons is the table's", () => {
    const table = reasonTable();
    const page = fs.readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
    assert.ok(page.includes(table), `docs/api.md's table of reasons differs from src/errors.ts; replace it with:\n\n${table}\n`);
  });
});

for (const tdb of testDatabases) {
  describe(`error answers carry their reason (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_AUTH_FAILURE_LIMIT: '10/60' }, { logger: { level: 'error' } as any });
      org = await server.createOrganization();
    });
    after(() => server.close());

    const reasonOf = (answer: Answer) => {
      const detail = answer.json?.details?.find((d: any) => d['@type'] === DETAIL);
      assert.ok(detail, `no reason in ${answer.status} ${answer.text}`);
      // The reason always agrees with the status and gRPC code of the answer.
      assert.equal(answer.status, REASONS[detail.turnkeyErrorCode as Reason].status, answer.text);
      assert.equal(answer.json.code, grpcCodeOf(detail.turnkeyErrorCode as Reason), answer.text);
      return detail.turnkeyErrorCode;
    };
    const whoami = (organizationId: string) => JSON.stringify({ organizationId });

    test('malformed JSON is MALFORMED_REQUEST; a field violation is INVALID_REQUEST beside the BadRequest detail', async () => {
      const bad = await postStamped(server.baseUrl, '/public/v1/query/whoami', '{"organizationId":', org);
      assert.equal(reasonOf(bad), 'MALFORMED_REQUEST');
      const invalid = await postStamped(server.baseUrl, '/public/v1/query/whoami', JSON.stringify({ organizationId: org.organizationId, extra: 1 }), org);
      assert.equal(invalid.status, 400);
      assert.deepEqual(invalid.json.details, [
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: invalid.json.details[0].fieldViolations },
        { '@type': DETAIL, turnkeyErrorCode: 'INVALID_REQUEST' },
      ]);
    });

    test('an unknown organization: ORGANIZATION_NOT_FOUND on the admin API, WRONG_ORGANIZATION for a stamp of another', async () => {
      const response = await fetch(`${server.baseUrl}/admin/v1/organizations/${randomUUID()}/users`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const text = await response.text();
      assert.equal(reasonOf({ status: response.status, headers: response.headers, json: JSON.parse(text), text }), 'ORGANIZATION_NOT_FOUND');
      assert.equal(reasonOf(await postStamped(server.baseUrl, '/public/v1/query/whoami', whoami(randomUUID()), org)), 'WRONG_ORGANIZATION');
    });

    test('stamps: missing, malformed, a bad signature, a revoked key', async () => {
      const body = whoami(org.organizationId);
      const json = { 'content-type': 'application/json' };
      assert.equal(reasonOf(await post(server.baseUrl, '/public/v1/query/whoami', body, json)), 'STAMP_MISSING');
      assert.equal(reasonOf(await post(server.baseUrl, '/public/v1/query/whoami', body, { ...json, 'x-stamp': 'not a stamp' })), 'STAMP_MALFORMED');
      const other = await server.createOrganization();
      const stranger = await server.admin('POST', `/organizations/${other.organizationId}/api-keys`, { userId: other.userId });
      await server.admin('DELETE', `/organizations/${other.organizationId}/api-keys/${stranger.apiKeyId}`);
      assert.equal(reasonOf(await postStamped(server.baseUrl, '/public/v1/query/whoami', whoami(other.organizationId), stranger)), 'CREDENTIAL_REVOKED');
      const stamp = await new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey }).stamp('other bytes');
      assert.equal(reasonOf(await post(server.baseUrl, '/public/v1/query/whoami', body, { ...json, [stamp.stampHeaderName]: stamp.stampHeaderValue })), 'BAD_SIGNATURE');
    });

    test('a policy deny is REQUEST_NOT_AUTHORIZED, alone in details as before', async () => {
      const { userId } = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: `member ${randomUUID().slice(0, 8)}` });
      const member = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
      const body = JSON.stringify({
        type: 'ACTIVITY_TYPE_CREATE_USER_TAG',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { userTagName: 'tag', userIds: [] },
      });
      const denied = await postStamped(server.baseUrl, '/public/v1/submit/create_user_tag', body, member);
      assert.equal(denied.status, 403, denied.text);
      assert.deepEqual(denied.json.details, [{ '@type': DETAIL, turnkeyErrorCode: 'REQUEST_NOT_AUTHORIZED' }]);
    });

    test('a route not found, a body too large, the wrong content type', async () => {
      const missing = await fetch(`${server.baseUrl}/public/v1/nowhere`);
      const text = await missing.text();
      assert.equal(reasonOf({ status: missing.status, headers: missing.headers, json: JSON.parse(text), text }), 'ROUTE_NOT_FOUND');
      const large = await post(server.baseUrl, '/public/v1/query/whoami', 'x'.repeat(BODY_LIMIT_BYTES + 1), { 'content-type': 'application/json' });
      assert.equal(reasonOf(large), 'BODY_TOO_LARGE');
      assert.equal(reasonOf(await post(server.baseUrl, '/public/v1/query/whoami', '{}', { 'content-type': 'text/plain' })), 'UNSUPPORTED_MEDIA_TYPE');
    });

    // Last: it spends this client address's failure budget.
    test('too many failed authentications is TOO_MANY_AUTH_FAILURES, with Retry-After', async () => {
      const body = whoami(org.organizationId);
      let answer: Answer;
      do answer = await post(server.baseUrl, '/public/v1/query/whoami', body, { 'content-type': 'application/json', 'x-stamp': 'not a stamp' });
      while (answer.status === 401);
      assert.equal(reasonOf(answer), 'TOO_MANY_AUTH_FAILURES');
      assert.ok(Number(answer.headers.get('retry-after')) >= 1);
    });
  });
}
