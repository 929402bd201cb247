// Each activity handler declares what it is once (its path and types, its policy resource and action,
// the reasons it may answer, its line in docs/api.md), and so does each admin route: the policy kind
// table and the tables of docs/ are written from them by `npm run -s generate` and must be what it
// would write; the reasons a handler's own file names are among those it declares.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { ACTIVITY_REASONS, handlersByPath, kindResources, reasonsOfActivity } from '../src/activities/declarations.ts';
import { parameterType } from '../src/activities/parameterTypes.ts';
import type { ActivityHandler } from '../src/activities/handler.ts';
import { activityDeclarations, activityHandlers } from '../src/activities/registry.ts';
import { REASONS, type Reason } from '../src/errors.ts';
import { ADMIN_ROUTE_LIST } from '../src/http/adminApi.ts';
import { buildOpenApi } from '../src/http/openapi.ts';
import { queryHandlers } from '../src/queries/registry.ts';
import { adminRouteTable } from '../src/http/adminRouteTable.ts';
import { ACTIVITY_RESOURCES, activityResource } from '../src/policy/index.ts';
import type { UserClient } from '../src/cli/userClient.ts';
import { GENERATED, withBlock } from '../scripts/generate.ts';
import { ROOT } from './support/root.ts';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('what derives from the declarations', () => {
  for (const block of GENERATED) {
    test(`${block.file} holds the text written from the declarations`, () => {
      const content = read(block.file);
      assert.ok(block.anchor === undefined ? content === block.text : content.includes(block.text), `${block.file} differs from the declarations: run \`npm run -s generate\`, or replace its block with:\n\n${block.text}\n`);
    });
  }

  test('generating replaces the block and leaves the rest of the file as it was', () => {
    const block = { file: 'x.md', anchor: '| A |', text: '| A |\n|---|\n| new |' };
    assert.equal(withBlock('intro\n\n| A |\n|---|\n| old |\n| older |\n\nafter\n', block), 'intro\n\n| A |\n|---|\n| new |\n\nafter\n');
    assert.throws(() => withBlock('no table\n', block), /x\.md: no line starts with \| A \|/);
  });

  test("the policy module's kind table is each handler's resource and action", () => {
    for (const handler of activityDeclarations) {
      for (const type of [handler.activityType, ...(handler.otherActivityTypes ?? [])]) {
        assert.deepEqual(activityResource(type), { resource: handler.resource, action: handler.action }, type);
      }
    }
    assert.deepEqual(Object.keys(ACTIVITY_RESOURCES).sort(), [...kindResources(activityDeclarations).keys()].sort(), 'no kind without a handler');
  });

  test('handlers of one kind that declare different resources or actions are refused', () => {
    const [first] = activityHandlers;
    const other: ActivityHandler = { ...first!, activityType: first!.activityType.replace(/_V[0-9]+$/, '_V9'), action: 'DELETE' };
    assert.throws(() => kindResources([first!, other]), /declares AUTH CREATE/);
  });

  test("docs/admin-api.md's table lists every admin route", () => {
    const page = read('docs/admin-api.md');
    for (const route of ADMIN_ROUTE_LIST) assert.ok(page.includes(`| \`${route.method.toUpperCase()} ${route.path}`), `${route.method} ${route.path}`);
    assert.equal(adminRouteTable().split('\n').length, ADMIN_ROUTE_LIST.length + 2);
  });
});

describe("each handler's reasons", () => {
  test("are its own: none twice, none that every activity gives", () => {
    for (const handler of activityHandlers) {
      assert.equal(new Set(handler.reasons).size, handler.reasons.length, handler.activityType);
      for (const reason of handler.reasons) assert.ok(!ACTIVITY_REASONS.includes(reason), `${handler.activityType}: ${reason} is one every activity gives`);
    }
    for (const [path, group] of handlersByPath(activityHandlers)) {
      assert.deepEqual(new Set(group.map((handler) => JSON.stringify([...handler.reasons].sort()))).size, 1, `the handlers of ${path} declare the same reasons`);
    }
  });

  test("hold every reason the handler's own file names", () => {
    const names = Object.keys(REASONS) as Reason[];
    const files = [
      ...fs.readdirSync(path.join(ROOT, 'src/activities/handlers'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts')).map((file) => `src/activities/handlers/${file}`),
      'src/activities/lifecycle/votes.ts',
    ];
    const sources = files.map((file) => ({ file, source: read(file) }));
    for (const handler of activityHandlers) {
      // The handler's file is the one that declares its type.
      const own = sources.filter(({ source }) => source.includes(`activityType: '${handler.activityType}'`));
      assert.equal(own.length, 1, `${handler.activityType} is declared in one file`);
      const { file, source } = own[0]!;
      const declared = reasonsOfActivity([handler]);
      for (const reason of names.filter((name) => source.includes(`'${name}'`))) {
        assert.ok(declared.includes(reason), `${file}: ${handler.activityType} may answer ${reason}: declare it in its reasons`);
      }
    }
  });
});

describe("each activity's error answers in the OpenAPI document", () => {
  const document = buildOpenApi(activityHandlers, queryHandlers, 'test') as any;
  /** The reasons an answer lists, as `REASON` in code spans (a shared response: its status's). */
  const listed = (answer: any): string[] => {
    const description: string = answer.$ref ? document.components.responses[answer.$ref.split('/').pop()].description : answer.description;
    return [...description.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!).filter((name) => name in REASONS);
  };

  test('are the reasons its handlers may give, each under its status', () => {
    for (const [path, group] of handlersByPath(activityHandlers)) {
      const responses = document.paths[`/public/v1/submit/${path}`].post.responses;
      const documented = Object.entries<any>(responses).filter(([status]) => Number(status) >= 400).flatMap(([status, answer]) => {
        for (const reason of listed(answer)) assert.equal(String(REASONS[reason as Reason].status), status, `${path}: ${reason} under ${status}`);
        return listed(answer);
      });
      assert.deepEqual(documented.sort(), reasonsOfActivity(group).sort(), path);
    }
  });

  test('a 404 only where a handler declares one, beyond the deleted sub-organization every activity may meet', () => {
    const responses = (path: string) => document.paths[`/public/v1/submit/${path}`].post.responses;
    assert.deepEqual(listed(responses('create_policy')['404']), ['ORGANIZATION_DELETED']);
    assert.deepEqual(listed(responses('delete_policy')['404']), ['ORGANIZATION_DELETED', 'POLICY_NOT_FOUND']);
    assert.deepEqual(listed(responses('verify_otp')['400']), ['MALFORMED_REQUEST', 'INVALID_REQUEST', 'CONCURRENT_CHANGE', 'INVALID_OTP_CODE', 'OTP_EXPIRED', 'OTP_ALREADY_USED', 'OTP_ATTEMPTS_EXHAUSTED']);
    assert.deepEqual(listed(responses('init_otp')['429']), ['TOO_MANY_AUTH_FAILURES', 'OTP_RATE_LIMITED']);
    assert.deepEqual(listed(responses('create_policy')['429']), ['TOO_MANY_AUTH_FAILURES']);
  });
});

describe('submissions typed from the handlers', () => {
  // Never run: `npm run typecheck` holds these lines, each a submission the handlers would refuse.
  function refusedByTheCompiler(client: UserClient) {
    // @ts-expect-error a path that is no activity's
    void client.submit('create_polcy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName: 'p', effect: 'EFFECT_ALLOW', notes: '' });
    // @ts-expect-error a type its path does not take
    void client.submit('create_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: 'p' });
    // @ts-expect-error a field the schema does not have
    void client.submit('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: 'p', force: true });
    // @ts-expect-error a required field left out
    void client.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName: 'p', notes: '' });
    // @ts-expect-error a value of the wrong kind
    void client.submit('update_root_quorum', 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { threshold: '1', userIds: [] });
    // Each path takes its older types with their own parameters.
    void client.submit('verify_otp', 'ACTIVITY_TYPE_VERIFY_OTP', { otpId: 'o', otpCode: '123456' });
    void client.submit('verify_otp', 'ACTIVITY_TYPE_VERIFY_OTP_V2', { otpId: 'o', encryptedOtpBundle: 'b' });
  }

  test('the parameter types are written from the schemas as clients send them', () => {
    assert.equal(typeof refusedByTheCompiler, 'function');
    const schema = z.strictObject({
      name: z.string(),
      effect: z.enum(['EFFECT_ALLOW', 'EFFECT_DENY']),
      count: z.number().int().optional(),
      length: z.number().default(6),
      ids: z.array(z.uuid()),
      labels: z.record(z.string(), z.string()),
      either: z.union([z.literal("it's"), z.boolean()]),
      nested: z.strictObject({ 'odd-name': z.null() }),
    });
    const handler = { ...activityHandlers[0]!, parameters: schema } as ActivityHandler;
    assert.equal(
      parameterType(handler, 0),
      [
        '{',
        '  name: string;',
        "  effect: 'EFFECT_ALLOW' | 'EFFECT_DENY';",
        '  count?: number;',
        '  length?: number;',
        '  ids: Array<string>;',
        '  labels: {',
        '    [key: string]: string;',
        '  };',
        "  either: 'it\\'s' | boolean;",
        '  nested: {',
        "    'odd-name': null;",
        '  };',
        '}',
      ].join('\n'),
    );
    const source = read('src/activities/activityParameters.ts');
    for (const handler of activityHandlers) assert.ok(source.includes(parameterType(handler)), `${handler.activityType}: its parameters' type`);
  });
});
