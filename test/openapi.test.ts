// The OpenAPI document covers every route the server serves, its examples validate against the
// very schemas that validate requests, and /docs shows it as a page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { activityHandlers } from '../src/activities/registry.ts';
import { envelopeSchema } from '../src/activities/envelope.ts';
import { routesOf } from '../src/http/app.ts';
import { queryHandlers } from '../src/queries/registry.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type TestServer } from './support/server.ts';

describe('OpenAPI', () => {
  let server: TestServer;
  let document: any;

  before(async () => {
    server = await startTestServer(testDatabases[0]!, { SIGNET_OUTBOX_WORKER: 'false' });
    const response = await fetch(`${server.baseUrl}/openapi.json`);
    assert.equal(response.status, 200);
    document = await response.json();
  });
  after(() => server.close());

  test('is OpenAPI 3.1 and names every route the server serves', () => {
    assert.equal(document.openapi, '3.1.0');
    const routes = routesOf(server.server.app);
    assert.ok(routes.length >= 20, `${routes.length} routes`);
    const missing = routes
      .map(({ method, url }) => ({ method: method.toLowerCase(), path: url.replace(/:(\w+)/g, '{$1}') }))
      .filter(({ method, path }) => !document.paths[path]?.[method])
      .map(({ method, path }) => `${method} ${path}`);
    assert.deepEqual(missing, []);
  });

  test('every activity and query example validates against the schemas that validate requests', () => {
    for (const handler of activityHandlers) {
      const body = document.paths[`/public/v1/submit/${handler.path}`].post.requestBody.content['application/json'].example;
      assert.ok(envelopeSchema.safeParse(body).success, `${handler.path} envelope`);
      assert.equal(body.type, handler.activityType);
      const parsed = handler.parameters.safeParse(body.parameters);
      assert.ok(parsed.success, `${handler.path}: ${JSON.stringify(parsed.error?.issues)}`);
    }
    for (const query of queryHandlers) {
      const body = document.paths[`/public/v1/query/${query.path}`].post.requestBody.content['application/json'].example;
      const parsed = query.request.safeParse(body);
      assert.ok(parsed.success, `${query.path}: ${JSON.stringify(parsed.error?.issues)}`);
    }
  });

  test('request schemas come from the validating schemas (required fields, enums, strictness)', () => {
    const otp = document.paths['/public/v1/submit/init_otp_auth'].post.requestBody.content['application/json'].schema;
    const parameters = otp.properties.parameters;
    assert.deepEqual([...parameters.required].sort(), ['appName', 'contact', 'otpType']);
    assert.deepEqual(parameters.properties.otpType.enum, ['OTP_TYPE_EMAIL', 'OTP_TYPE_SMS']);
    assert.equal(parameters.additionalProperties, false);
    assert.equal(otp.properties.type.const, 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3');
  });

  test('/docs is a readable page listing every public path', async () => {
    const response = await fetch(`${server.baseUrl}/docs`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    const page = await response.text();
    for (const path of Object.keys(document.paths)) assert.ok(page.includes(path.replace(/[{}]/g, (c) => c)), path);
    assert.doesNotMatch(page, /<script/);
  });
});
