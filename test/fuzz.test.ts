// The fuzzer's routes (bench/fuzzRoutes.ts) are exactly the operations of the /openapi.json Signet
// serves, each with what authenticates it and a body to start from; and a short run of the fuzzer
// (bench/fuzz.ts) against a real `signet serve` exercises every one of them, every answer below 500
// on a connection that is never reset. The long run (`npm run fuzz -- --requests 100000`) is not
// part of npm test.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { activityHandlers } from '../src/activities/registry.ts';
import { labelOf, operationsOf, type OpenApi } from '../bench/fuzzRoutes.ts';
import { buildOpenApi } from '../src/http/openapi.ts';
import { queryHandlers } from '../src/queries/registry.ts';
import { testDatabases } from './support/databases.ts';
import { ROOT, run } from './support/processes.ts';

const document = buildOpenApi(activityHandlers, queryHandlers, '0') as unknown as OpenApi & { paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown[] }>> };
/** Every operation of the document the server serves, as the fuzzer labels it: "POST /admin/v1/organizations". */
const operations = Object.entries(document.paths).flatMap(([template, item]) =>
  Object.keys(item).map((method) => `${method.toUpperCase()} ${template}`),
);

test("the fuzzer's routes are the operations of /openapi.json, each with its authentication and a body to send", () => {
  const routes = operationsOf(document);
  assert.deepEqual(routes.map(labelOf).sort(), [...operations].sort());
  for (const route of routes) {
    const declared = document.paths[route.template]![route.method.toLowerCase()]!;
    const expected = route.template.startsWith('/admin/') ? 'bearer' : (declared.security?.length ?? 0) > 0 ? 'stamp' : 'none';
    assert.equal(route.auth, expected, `${labelOf(route)} authenticates with ${expected}`);
    if (declared.requestBody) assert.ok(route.examples.length > 0 && route.examples.every((example) => example !== null && example !== undefined), `${labelOf(route)} has a body to send`);
    for (const name of route.template.match(/(?<=\{)[^}]+(?=\})/g) ?? []) {
      assert.ok(route.parameters.some((parameter) => parameter.in === 'path' && parameter.name === name), `${labelOf(route)} fills {${name}}`);
    }
  }
  // Each kind is there: the check above cannot pass on a document of one kind only.
  assert.deepEqual([...new Set(routes.map((route) => route.auth))].sort(), ['bearer', 'none', 'stamp']);
});

for (const tdb of testDatabases) {
  test(`${tdb.name}: 2,000 fuzzed requests over every route of /openapi.json: no 5xx, no connection error`, async () => {
    const finished = await run(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'bench', 'fuzz.ts'), '--requests', '2000', '--seed', '7'],
      { FUZZ_DATABASE_URL: tdb.url ?? '' },
      // A bound on a fuzzer that hangs, not on its speed: 2,000 requests take some 20 s on a quiet machine.
      540_000,
    );
    const output = finished.stdout + finished.stderr;
    assert.match(finished.stdout, /^fuzz: 2000 requests in /m, output);
    assert.match(finished.stdout, /^5xx: 0, connection errors: 0$/m, output);
    assert.match(finished.stdout, new RegExp(`^routes exercised: ${operations.length} of ${operations.length} operations in /openapi.json$`, 'm'), output);
    for (const operation of operations) {
      const line = finished.stdout.split('\n').find((text) => text.trimStart().startsWith(`${operation} `));
      assert.ok(line, `no line for ${operation}:\n${output}`);
      assert.match(line, /^\s+\S+ \S+\s+[1-9]\d*  /, `${operation} was not exercised:\n${line}`);
    }
    // Some requests of each kind got through every check, to the store.
    for (const reached of ['POST /public/v1/submit/init_otp_auth', 'POST /public/v1/query/list_activities', 'POST /admin/v1/organizations/{organizationId}/users']) {
      const line = finished.stdout.split('\n').find((text) => text.trimStart().startsWith(`${reached} `));
      assert.match(line ?? '', /\b200: \d+/, `no request to ${reached} was answered 200:\n${output}`);
    }
    assert.equal(finished.code, 0, output);
  });
}
