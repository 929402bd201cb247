// The OpenAPI document is valid OpenAPI 3.1 and covers every route the server serves; its examples
// validate against the very schemas that validate requests; every bound the server enforces is a
// schema keyword; every field is described; every operation documents its answer and its errors in
// the Error shape; and real answers of the running server match the documented answers. /docs, its
// assets and GET / are served as the reference page needs them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { z } from 'zod';
import { activityAnswer } from '../src/activities/wire/activitySchema.ts';
import { envelopeSchema } from '../src/activities/wire/envelope.ts';
import { wholeNumberPattern } from '../src/wire/numberPattern.ts';
import { activityHandlers } from '../src/activities/registry.ts';
import { voteRoutes } from '../src/activities/lifecycle/votes.ts';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { ADMIN_ROUTE_LIST, adminSchemas } from '../src/http/adminApi.ts';
import { routesOf } from '../src/http/app.ts';
import { serviceAnswers } from '../src/http/openapiSchemas.ts';
import { queryHandlers } from '../src/queries/registry.ts';
import { testDatabases } from './support/databases.ts';
import { postStamped } from './support/http.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

type Schema = Record<string, any>;

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

  /** A schema with its $ref (to components) followed. */
  function resolve(schema: Schema): Schema {
    if (typeof schema?.$ref !== 'string') return schema;
    const target = schema.$ref.replace('#/components/', '').split('/').reduce((node: any, key: string) => node?.[key], document.components);
    assert.ok(target, `unresolved ${schema.$ref}`);
    return resolve(target);
  }

  /** The schema at a dotted path of properties (`[]` steps into items), following $refs and oneOf's first branch. */
  function at(schema: Schema, path: string): Schema {
    return path.split('.').reduce((node, key) => {
      const resolved = resolve(node);
      const object = resolved.oneOf ? resolve(resolved.oneOf[0]) : resolved;
      const next = key === '[]' ? object.items : object.properties?.[key];
      assert.ok(next, `no ${key} in ${path}`);
      return resolve(next);
    }, schema);
  }

  const requestSchema = (path: string, method = 'post') => document.paths[path][method].requestBody.content['application/json'].schema;
  const params = (activity: string) => at(requestSchema(`/public/v1/submit/${activity}`), 'parameters');

  test('is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
    assert.equal(document.openapi, '3.1.0');
    const result = await new Validator().validate(structuredClone(document));
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  });

  test('names every route the server serves', () => {
    const routes = routesOf(server.server.app);
    assert.ok(routes.length >= 30, `${routes.length} routes`);
    const missing = routes
      .map(({ method, url }) => ({ method: method.toLowerCase(), path: url.replace(/:(\w+)/g, '{$1}') }))
      .filter(({ method, path }) => !document.paths[path]?.[method])
      .map(({ method, path }) => `${method} ${path}`);
    assert.deepEqual(missing, []);
  });

  test('every example validates against the schemas that validate requests (envelope, parameters, queries, admin bodies)', () => {
    for (const handler of activityHandlers) {
      const content = document.paths[`/public/v1/submit/${handler.path}`].post.requestBody.content['application/json'];
      // A path of several handlers (verify_otp V1 and V2) has one example per type.
      const body = content.examples ? content.examples[handler.activityType].value : content.example;
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
    let adminBodies = 0;
    for (const route of ADMIN_ROUTE_LIST.filter((r) => r.body)) {
      const content = document.paths[route.path][route.method].requestBody.content['application/json'];
      const parsed = route.body!.safeParse(content.example);
      assert.ok(parsed.success, `${route.method} ${route.path}: ${JSON.stringify(parsed.error?.issues)}`);
      adminBodies++;
    }
    assert.equal(adminBodies, Object.keys(adminSchemas).length - 1); // deliveries is a query string
  });

  test('every bound the server enforces is a schema keyword', () => {
    const otp = params('init_otp_auth');
    const { type, minimum, maximum, default: otpLengthDefault } = at(otp, 'otpLength');
    assert.deepEqual({ type, minimum, maximum, default: otpLengthDefault }, { type: 'integer', minimum: 6, maximum: 9, default: 9 });
    assert.deepEqual([...at(otp, 'otpType').enum].sort(), ['OTP_TYPE_EMAIL', 'OTP_TYPE_SMS']);
    assert.equal(at(otp, 'expirationSeconds').default, '300');
    assert.equal(at(otp, 'contact').maxLength, 254);
    assert.equal(at(otp, 'appName').maxLength, 100);
    assert.equal(at(otp, 'appName').minLength, 1);
    assert.equal(at(otp, 'sendFromEmailSenderName').maxLength, 100);
    assert.equal(at(otp, 'userIdentifier').maxLength, 256);
    assert.equal(at(otp, 'emailCustomization.logoUrl').maxLength, 2048);
    assert.equal(at(otp, 'emailCustomization.magicLinkTemplate').maxLength, 2048);
    assert.equal(at(otp, 'emailCustomization.templateVariables').maxLength, 16384);
    assert.equal(at(otp, 'emailCustomization.templateId').format, 'uuid');
    assert.equal(at(otp, 'smsCustomization.template').maxLength, 320);
    assert.equal(otp.additionalProperties, false);
    assert.deepEqual([...otp.required].sort(), ['appName', 'contact', 'otpType']);
    // init_otp takes the same parameters.
    assert.deepEqual(params('init_otp'), otp);

    const contract = params('create_smart_contract_interface');
    assert.equal(at(contract, 'smartContractInterface').maxLength, 409_600);
    assert.equal(at(contract, 'smartContractInterface')['x-maxBytes'], 409_600);
    assert.equal(at(contract, 'label').maxLength, 256);
    assert.equal(at(contract, 'notes').maxLength, 4096);
    assert.deepEqual(at(contract, 'type').enum, ['SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA']);
    const address = new RegExp(at(contract, 'smartContractAddress').pattern);
    assert.ok(address.test('0xdAC17F958D2ee523a2206206994597C13D831ec7') && address.test('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA') && !address.test('0x1234'));

    const verify = requestSchema('/public/v1/submit/verify_otp').oneOf.map((body: Schema) => at(body, 'parameters'));
    const [v2, v1] = verify;
    assert.equal(at(v2, 'encryptedOtpBundle').maxLength, 4096);
    assert.equal(at(v2, 'encryptedOtpBundle').minLength, 1);
    assert.equal(at(v1, 'otpCode').maxLength, 64);
    assert.equal(at(v1, 'otpId').format, 'uuid');
    const key = new RegExp(at(v1, 'publicKey').pattern);
    assert.ok(key.test(`02${'a'.repeat(64)}`) && key.test(`04${'B'.repeat(128)}`) && !key.test(`05${'a'.repeat(64)}`));

    const login = requestSchema('/public/v1/submit/otp_login').oneOf.map((body: Schema) => at(body, 'parameters'));
    assert.equal(at(login[0], 'verificationToken').maxLength, 8192);
    assert.equal(at(login[0], 'clientSignature.message').maxLength, 1024);
    assert.equal(at(login[0], 'sessionProfileId').maxLength, 64);
    assert.deepEqual(login[0].required.includes('clientSignature'), true); // V2
    assert.deepEqual(login[1].required.includes('clientSignature'), false); // V1

    const users = params('create_users');
    assert.equal(at(users, 'users').minItems, 1);
    assert.equal(at(users, 'users').maxItems, 100);
    assert.equal(at(users, 'users.[].apiKeys').maxItems, 10);
    assert.equal(at(users, 'users.[].authenticators').maxItems, 10);
    assert.equal(at(users, 'users.[].oauthProviders').maxItems, 10);
    assert.equal(at(users, 'users.[].oauthProviders.[].oidcToken').maxLength, 16_384);
    assert.equal(at(users, 'users.[].userTags').maxItems, 20);
    assert.equal(at(users, 'users.[].userTags.[]').format, 'uuid');
    assert.deepEqual(at(users, 'users.[].apiKeys.[].curveType').enum, ['API_KEY_CURVE_P256']);
    assert.equal(at(users, 'users.[].userName').maxLength, 256);
    assert.equal(at(users, 'users.[].userPhoneNumber').maxLength, 32);

    const envelope = requestSchema('/public/v1/submit/create_users');
    assert.equal(at(envelope, 'organizationId').format, 'uuid');
    assert.equal(at(envelope, 'timestampMs').pattern, '^\\d{1,16}$');
    assert.equal(at(envelope, 'type').const, 'ACTIVITY_TYPE_CREATE_USERS_V4');

    const list = requestSchema('/public/v1/query/list_activities');
    assert.equal(at(list, 'filterByStatus').maxItems, 16);
    assert.equal(at(list, 'filterByType').maxItems, 64);
    assert.equal(at(list, 'paginationOptions.limit').pattern, '^(100|[1-9][0-9]?)$');

    const admin = (path: string, method = 'post') => requestSchema(path, method);
    assert.equal(at(admin('/admin/v1/organizations'), 'name').maxLength, 256);
    assert.equal(at(admin('/admin/v1/organizations'), 'name').minLength, 1);
    assert.equal(at(admin('/admin/v1/organizations/{organizationId}/users'), 'email').maxLength, 254);
    assert.equal(at(admin('/admin/v1/organizations/{organizationId}/users'), 'phoneNumber').maxLength, 32);
    assert.equal(at(admin('/admin/v1/organizations/{organizationId}/api-keys'), 'expiresInSeconds').maximum, 315_360_000);
    assert.equal(at(admin('/admin/v1/organizations/{organizationId}/email-templates'), 'html').maxLength, 262_144);
    assert.equal(at(admin('/admin/v1/organizations/{organizationId}/users/{userId}/authenticators'), 'challenge').minLength, 16);
    const deliveries = document.paths['/admin/v1/organizations/{organizationId}/deliveries'].get.parameters;
    assert.equal(deliveries.find((p: Schema) => p.name === 'limit').schema.pattern, wholeNumberPattern(500));
    assert.deepEqual(deliveries.find((p: Schema) => p.name === 'status').schema.enum, ['queued', 'sending', 'retrying', 'sent', 'failed']);
  });

  test('each bound a refinement enforces, stated as a pattern, accepts exactly what the server accepts', () => {
    const cases: Array<{ name: string; pattern: string; schema: z.ZodType; max: number }> = [];
    const otp = params('init_otp_auth');
    cases.push({ name: 'init_otp_auth expirationSeconds', pattern: at(otp, 'expirationSeconds').pattern, schema: activityHandlers[0]!.parameters, max: 600 });
    const [, v1] = requestSchema('/public/v1/submit/verify_otp').oneOf.map((body: Schema) => at(body, 'parameters'));
    cases.push({ name: 'verify_otp expirationSeconds', pattern: at(v1, 'expirationSeconds').pattern, schema: activityHandlers.find((h) => h.activityType === 'ACTIVITY_TYPE_VERIFY_OTP')!.parameters, max: 86_400 });
    const [login] = requestSchema('/public/v1/submit/otp_login').oneOf.map((body: Schema) => at(body, 'parameters'));
    cases.push({ name: 'otp_login expirationSeconds', pattern: at(login, 'expirationSeconds').pattern, schema: activityHandlers.find((h) => h.activityType === 'ACTIVITY_TYPE_OTP_LOGIN')!.parameters, max: 2_592_000 });
    const handlerFor = (path: string) => activityHandlers.find((h) => h.path === path)!;
    const examples: Record<string, Record<string, unknown>> = {
      'init_otp_auth expirationSeconds': handlerFor('init_otp_auth').example as Record<string, unknown>,
      'verify_otp expirationSeconds': activityHandlers.find((h) => h.activityType === 'ACTIVITY_TYPE_VERIFY_OTP')!.example as Record<string, unknown>,
      'otp_login expirationSeconds': handlerFor('otp_login').example as Record<string, unknown>,
    };
    for (const { name, pattern, schema, max } of cases) {
      const regex = new RegExp(pattern);
      for (const value of ['0', '1', '01', String(max - 1), String(max), String(max + 1), `${max}0`, '1.5', '']) {
        const accepted = schema.safeParse({ ...examples[name], expirationSeconds: value }).success;
        assert.equal(regex.test(value), accepted, `${name} "${value}": pattern ${regex.test(value)}, server ${accepted}`);
      }
    }
    const limit = new RegExp(wholeNumberPattern(500));
    for (const value of ['0', '1', '050', '499', '500', '501', '999']) {
      assert.equal(limit.test(value), adminSchemas.deliveries.safeParse({ limit: value }).success, `deliveries limit "${value}"`);
    }
  });

  test('every property of every request and answer is described', () => {
    const undescribed: string[] = [];
    const seen = new Set<Schema>();
    function walk(schema: Schema | undefined, where: string) {
      if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
      seen.add(schema);
      const resolved = resolve(schema);
      for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {})) {
        if (!property.description && !resolve(property).description) undescribed.push(`${where}.${name}`);
        walk(property, `${where}.${name}`);
      }
      for (const branch of [...(resolved.oneOf ?? []), ...(resolved.anyOf ?? []), ...(resolved.allOf ?? [])]) walk(branch, where);
      if (resolved.items) walk(resolved.items, `${where}[]`);
    }
    for (const [path, methods] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.ok(operation.summary, `${where} has no summary`);
        if (path.startsWith('/public/')) assert.ok(operation.description, `${where} has no description`);
        for (const [type, content] of Object.entries<any>(operation.requestBody?.content ?? {})) walk(content.schema, `${where} ${type}`);
        for (const parameter of operation.parameters ?? []) if (!parameter.description) undescribed.push(`${where} ?${parameter.name}`);
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          for (const content of Object.values<any>(resolve(response).content ?? {})) walk(content.schema, `${where} ${status}`);
        }
      }
    }
    assert.deepEqual(undescribed, []);
  });

  test('every operation documents its answer and its errors in the Error shape', () => {
    const ERROR = '#/components/schemas/Error';
    assert.deepEqual(Object.keys(resolve({ $ref: ERROR }).properties), ['code', 'message', 'details']);
    for (const [path, methods] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        const success = operation.responses['200'] ?? operation.responses['302'];
        assert.ok(success, `${where}: no 200`);
        if (operation.responses['200']) assert.ok(Object.values<any>(success.content)[0].schema, `${where}: no answer schema`);
        const errors = Object.entries<any>(operation.responses).filter(([status]) => Number(status) >= 400);
        assert.ok(errors.length >= 3, `${where}: ${errors.length} error answers`);
        for (const [status, response] of errors) {
          if (path === '/readyz' && status === '503') continue; // a health answer, {status: "unavailable"}
          assert.equal(resolve(response).content['application/json'].schema.$ref, ERROR, `${where} ${status}`);
        }
        if (path.startsWith('/public/')) {
          const attested = path === '/public/v1/submit/stamp_login' ? [{ AttestedStamp: [] }] : [];
          // A read-only session (X-Session) authenticates queries only.
          const readOnly = path.startsWith('/public/v1/query/') ? [{ ReadOnlySession: [] }] : [];
          assert.deepEqual(operation.security, [{ ApiKeyStamp: [] }, { WebAuthnStamp: [] }, ...attested, ...readOnly], where);
          for (const status of ['400', '401', '403', '413', '415', '429', '500', '503']) assert.ok(operation.responses[status], `${where} ${status}`);
        }
        if (path.startsWith('/admin/')) assert.deepEqual(operation.security, [{ AdminToken: [] }], where);
      }
    }
    const { securitySchemes } = document.components;
    assert.equal(securitySchemes.ApiKeyStamp.name, 'X-Stamp');
    assert.equal(securitySchemes.WebAuthnStamp.name, 'X-Stamp-WebAuthn');
    assert.equal(securitySchemes.AttestedStamp.name, 'X-Stamp-Attested');
    assert.equal(securitySchemes.ReadOnlySession.name, 'X-Session');
    assert.equal(securitySchemes.AdminToken.scheme, 'bearer');
    assert.deepEqual(document.tags.map((tag: Schema) => tag.name), ['activities', 'queries', 'admin', 'auth proxy', 'service']);
    for (const tag of document.tags) assert.ok(tag.description, tag.name);
    assert.match(document.info.description, /## How a stamp is built/);
    assert.match(document.info.description, /SIGNATURE_SCHEME_TK_API_P256/);
    assert.match(document.info.description, /base URL/);
    // Each activity answer holds its own result key, with that handler's result fields.
    const otpAnswer = document.paths['/public/v1/submit/init_otp_auth'].post.responses['200'].content['application/json'].schema;
    assert.deepEqual(at(otpAnswer, 'activity.result.initOtpAuthResultV2').required, ['otpId']);
    assert.deepEqual(at(otpAnswer, 'activity.type').enum, ['ACTIVITY_TYPE_INIT_OTP_AUTH_V3']);
    assert.equal(at(otpAnswer, 'activity.intent.initOtpAuthIntentV3').properties.otpLength.maximum, 9);
    const bundle = document.paths['/public/v1/submit/init_otp'].post.responses['200'].content['application/json'].schema;
    assert.deepEqual([...at(bundle, 'activity.result.initOtpResultV2').required].sort(), ['otpEncryptionTargetBundle', 'otpId']);
    // Every activity describes its result; a vote (a route family of its own) answers with the activity it voted on instead.
    for (const handler of activityHandlers) assert.ok(handler.resultSchema, `${handler.activityType} has no resultSchema`);
    for (const route of voteRoutes) assert.ok(document.paths[`/public/v1/submit/${route.path}`], `${route.path} is not in the document`);
    for (const query of queryHandlers) assert.ok(query.answer, `${query.path} has no answer schema`);
  });

  describe('real answers match the documented answers', () => {
    let org: Credentials;
    const submit = async (path: string, parameters: object, extra: object = {}) => {
      const body = JSON.stringify({ type: activityHandlers.find((h) => h.path === path)!.activityType, timestampMs: String(Date.now()), organizationId: org.organizationId, parameters, ...extra });
      const answer = await postStamped(server.baseUrl, `/public/v1/submit/${path}`, body, org);
      assert.equal(answer.status, 200, answer.text);
      return answer.json;
    };
    const query = async (path: string, body: object) => {
      const answer = await postStamped(server.baseUrl, `/public/v1/query/${path}`, JSON.stringify({ organizationId: org.organizationId, ...body }), org);
      assert.equal(answer.status, 200, answer.text);
      const parsed = queryHandlers.find((q) => q.path === path)!.answer!.safeParse(answer.json);
      assert.ok(parsed.success, `${path}: ${JSON.stringify(parsed.error?.issues)}`);
      return answer.json;
    };
    const checkActivity = (path: string, answer: unknown) => {
      const vote = voteRoutes.find((route) => route.path === path);
      const parsed = (vote ? vote.answer : activityAnswer(activityHandlers.find((h) => h.path === path)!)).safeParse(answer);
      assert.ok(parsed.success, `${path}: ${JSON.stringify(parsed.error?.issues)}`);
    };

    before(async () => {
      org = await server.createOrganization('Documented');
    });

    test('activities and queries', async () => {
      const contract = activityHandlers.find((h) => h.path === 'create_smart_contract_interface')!;
      const created = await submit(contract.path, contract.example as object, { generateAppProofs: true });
      checkActivity(contract.path, created);
      assert.equal(created.activity.appProofs.length, 1);
      for (const path of ['init_otp_auth', 'init_otp']) {
        checkActivity(path, await submit(path, { otpType: 'OTP_TYPE_EMAIL', contact: 'doc@example.com', appName: 'Docs' }));
      }
      checkActivity('create_users', await submit('create_users', { users: [{ userName: 'Doc', userEmail: 'doc@example.com' }] }));
      const id = created.activity.result.createSmartContractInterfaceResult.smartContractInterfaceId;
      await query('get_activity', { activityId: created.activity.id });
      await query('list_activities', {});
      await query('get_smart_contract_interface', { smartContractInterfaceId: id });
      await query('list_smart_contract_interfaces', {});
      await query('get_app_proofs', { activityId: created.activity.id });
      await query('list_app_proofs', { activityId: created.activity.id });
      await query('get_app_proof_keys', {});
      await query('get_organization_configs', {});
      assert.equal((await query('get_organization', {})).organizationData.users[1].userEmail, 'doc@example.com');
      checkActivity('delete_smart_contract_interface', await submit('delete_smart_contract_interface', { smartContractInterfaceId: id }));
      // A tag of the submitter: its vote's user lists it.
      const tagged = await submit('create_user_tag', { userTagName: 'Documented', userIds: [org.userId] });
      checkActivity('create_user_tag', tagged);
      const tagId = tagged.activity.result.createUserTagResult.userTagId;
      const listed = await query('list_user_tags', {});
      assert.equal(listed.userTags.length, 1);
      const voted = await submit(contract.path, { ...(contract.example as object), label: 'tagged' });
      assert.deepEqual(voted.activity.votes[0].user.userTags, [tagId]);
      checkActivity(contract.path, voted);
      checkActivity('delete_user_tags', await submit('delete_user_tags', { userTagIds: [tagId] }));
      // Policies: each handler's own example, then read back.
      const example = (path: string) => activityHandlers.find((h) => h.path === path)!.example as object;
      const policy = await submit('create_policy', example('create_policy'));
      checkActivity('create_policy', policy);
      const policyId = policy.activity.result.createPolicyResult.policyId;
      const policies = await submit('create_policies', example('create_policies'));
      checkActivity('create_policies', policies);
      checkActivity('update_policy', await submit('update_policy', { ...example('update_policy'), policyId }));
      await query('get_policy', { policyId });
      assert.equal((await query('list_policies', {})).policies.length, 1 + policies.activity.result.createPoliciesResult.policyIds.length);
      assert.equal((await query('get_organization', {})).organizationData.policies[0].policyId, policyId);
      checkActivity('delete_policies', await submit('delete_policies', { policyIds: policies.activity.result.createPoliciesResult.policyIds }));
      checkActivity('delete_policy', await submit('delete_policy', { policyId }));
      // Wallets: each handler's own example, then read back.
      const wallet = await submit('create_wallet', example('create_wallet'));
      checkActivity('create_wallet', wallet);
      const walletId = wallet.activity.result.createWalletResult.walletId;
      checkActivity('create_wallet_accounts', await submit('create_wallet_accounts', { ...example('create_wallet_accounts'), walletId }));
      await query('get_wallet', { walletId });
      await query('list_wallets', {});
      assert.equal((await query('list_wallet_accounts', { walletId, includeWalletDetails: true })).accounts.length, 3);
      await query('get_wallet_account', { walletId, path: "m/44'/60'/0'/0/1" });
      checkActivity('update_root_quorum', await submit('update_root_quorum', { threshold: 1, userIds: [org.userId] }));
      // A quorum of two: an activity waits, a second root's vote decides it, and the record of each vote is read.
      const { userId } = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'second root' });
      const second = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
      checkActivity('update_root_quorum', await submit('update_root_quorum', { threshold: 2, userIds: [org.userId, userId] }));
      const vote = async (path: 'approve_activity' | 'reject_activity', fingerprint: string) => {
        const body = JSON.stringify({ type: voteRoutes.find((route) => route.path === path)!.activityType, timestampMs: String(Date.now()), organizationId: org.organizationId, parameters: { fingerprint } });
        const answer = await postStamped(server.baseUrl, `/public/v1/submit/${path}`, body, second);
        assert.equal(answer.status, 200, answer.text);
        checkActivity(path, answer.json);
        return answer.json;
      };
      const waiting = await submit(contract.path, { ...(contract.example as object), label: 'waits' });
      checkActivity(contract.path, waiting);
      assert.equal(waiting.activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.equal((await vote('reject_activity', waiting.activity.fingerprint)).activity.status, 'ACTIVITY_STATUS_REJECTED');
      const back = await submit('update_root_quorum', { threshold: 1, userIds: [org.userId] });
      const approved = await vote('approve_activity', back.activity.fingerprint);
      assert.equal(approved.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal((await query('get_policy_evaluations', { activityId: approved.activity.id })).policyEvaluations.length, 2);
      await query('get_mfa_status', { activityId: created.activity.id });
      // Users and their credentials: the second root has an API key; the creator too.
      assert.equal((await query('whoami', {})).userId, org.userId);
      const secondUser = (await query('get_user', { userId })).user;
      assert.equal(secondUser.apiKeys[0].apiKeyId, second.apiKeyId);
      assert.ok((await query('list_users', {})).users.length >= 3);
      assert.ok((await query('get_api_keys', {})).apiKeys.length >= 2);
      assert.equal((await query('get_api_key', { apiKeyId: second.apiKeyId })).apiKey.credential.type, 'CREDENTIAL_TYPE_API_KEY_P256');
      assert.deepEqual((await query('get_authenticators', { userId })).authenticators, []);
      // An API key for the second root, then revoked.
      const keys = await submit('create_api_keys', { userId, apiKeys: [{ apiKeyName: 'documented', publicKey: generateApiKeyPair().apiPublicKey, curveType: 'API_KEY_CURVE_P256', expirationSeconds: '3600' }] });
      checkActivity('create_api_keys', keys);
      const apiKeyIds = keys.activity.result.createApiKeysResult.apiKeyIds;
      assert.equal((await query('get_api_key', { apiKeyId: apiKeyIds[0] })).apiKey.apiKeyName, 'documented');
      checkActivity('delete_api_keys', await submit('delete_api_keys', { userId, apiKeyIds }));
    });

    test('admin and service routes', async () => {
      const served = new Set(routesOf(server.server.app).map(({ method, url }) => `${method.toLowerCase()} ${url.replace(/:(\w+)/g, '{$1}')}`));
      const admin = async (method: 'get' | 'post' | 'put' | 'delete', template: string, values: Record<string, string>, body?: unknown) => {
        const route = ADMIN_ROUTE_LIST.find((r) => r.method === method && r.path === `/admin/v1${template}`)!;
        assert.ok(route, template);
        const answer = await server.admin(method.toUpperCase(), template.replace(/\{(\w+)\}/g, (_m, name: string) => values[name]!), body);
        const parsed = route.answer.safeParse(answer);
        assert.ok(parsed.success, `${method} ${template}: ${JSON.stringify(parsed.error?.issues)}`);
        return answer;
      };
      const values: Record<string, string> = { organizationId: org.organizationId };
      values.userId = (await admin('post', '/organizations/{organizationId}/users', values, { email: 'admin-doc@example.com', phoneNumber: '+14155552671' })).userId;
      await admin('get', '/organizations/{organizationId}/users', values);
      await admin('get', '/organizations/{organizationId}/users/{userId}', values);
      values.apiKeyId = (await admin('post', '/organizations/{organizationId}/api-keys', values, { userId: values.userId, expiresInSeconds: 60 })).apiKeyId;
      await admin('delete', '/organizations/{organizationId}/api-keys/{apiKeyId}', values);
      await admin('put', '/organizations/{organizationId}/root-quorum', values, { threshold: 1, userIds: [org.userId] });
      await admin('get', '/organizations/{organizationId}/root-quorum', values);
      values.domain = (await admin('post', '/organizations/{organizationId}/sender-domains', values, { domain: 'mail.documented.example' })).domain;
      await admin('get', '/organizations/{organizationId}/sender-domains', values);
      values.templateId = (await admin('post', '/organizations/{organizationId}/email-templates', values, { subject: 'Code', html: '<p>{{otpCode}}</p>', text: '{{otpCode}}' })).templateId;
      await admin('get', '/organizations/{organizationId}/email-templates', values);
      await admin('delete', '/organizations/{organizationId}/email-templates/{templateId}', values);
      await admin('get', '/organizations/{organizationId}/deliveries', values);
      await admin('delete', '/organizations/{organizationId}/users/{userId}', values);
      // Routes added by other work are checked once the server serves them.
      if (served.has('get /admin/v1/organizations')) await admin('get', '/organizations', values);
      if (served.has('get /admin/v1/organizations/{organizationId}/api-keys')) await admin('get', '/organizations/{organizationId}/api-keys', values);
      if (served.has('delete /admin/v1/organizations/{organizationId}/sender-domains/{domain}')) await admin('delete', '/organizations/{organizationId}/sender-domains/{domain}', values);

      for (const [path, schema] of [
        ['/healthz', serviceAnswers.status],
        ['/readyz', serviceAnswers.status],
        ['/.well-known/jwks.json', serviceAnswers.jwks],
        ['/.well-known/signet-keys.json', serviceAnswers.signetKeys],
      ] as const) {
        const parsed = schema.safeParse(await (await fetch(`${server.baseUrl}${path}`)).json());
        assert.ok(parsed.success, `${path}: ${JSON.stringify(parsed.error?.issues)}`);
      }
      const refused = await (await fetch(`${server.baseUrl}/admin/v1/organizations`, { method: 'POST' })).json();
      assert.ok(z.strictObject({ code: z.number(), message: z.string(), details: z.array(z.unknown()) }).safeParse(refused).success);
    });
  });

  describe('the reference page', () => {
    test('GET / redirects to /docs; /docs is the page over openapi.json, with nothing from elsewhere', async () => {
      const root = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
      assert.equal(root.status, 302);
      assert.equal(new URL(root.headers.get('location')!, `${server.baseUrl}/`).href, `${server.baseUrl}/docs`);
      const page = await fetch(`${server.baseUrl}/docs`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
      const html = await page.text();
      const loaded = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      assert.deepEqual(loaded.sort(), ['data:,', 'docs/assets/signet-docs.js', 'docs/assets/swagger-ui-bundle.js', 'docs/assets/swagger-ui.css', 'openapi.json']);
      assert.equal(page.headers.get('access-control-allow-origin'), null);
    });

    test('its assets come from the installed package, cached and revalidated by version, and are not public API', async () => {
      for (const [file, type] of [['swagger-ui-bundle.js', 'text/javascript'], ['swagger-ui.css', 'text/css'], ['signet-docs.js', 'text/javascript']]) {
        const response = await fetch(`${server.baseUrl}/docs/assets/${file}`);
        assert.equal(response.status, 200, file);
        assert.match(response.headers.get('content-type') ?? '', new RegExp(`^${type}`), file);
        assert.equal(response.headers.get('cache-control'), 'public, max-age=86400');
        const text = await response.text();
        assert.ok(text.length > 100, file);
        const etag = response.headers.get('etag')!;
        assert.match(etag, /^"[\d.]+-[\d.]+"$/);
        const again = await fetch(`${server.baseUrl}/docs/assets/${file}`, { headers: { 'if-none-match': etag } });
        assert.equal(again.status, 304, file);
      }
      assert.match(await (await fetch(`${server.baseUrl}/docs/assets/signet-docs.js`)).text(), /validatorUrl: null/);
      const unknown = await fetch(`${server.baseUrl}/docs/assets/..%2Fpackage.json`);
      assert.equal(unknown.status, 404);
      assert.equal((await unknown.json()).code, 5);
      assert.equal((await fetch(`${server.baseUrl}/docs/assets/constructor`)).status, 404);

      // Metrics label the asset route by its pattern, never by the file asked for.
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      assert.match(metrics, /signet_http_requests_total\{method="GET",route="\/docs\/assets\/:file",status="200"\} \d+/);
      assert.match(metrics, /signet_http_requests_total\{method="GET",route="\/docs\/assets\/:file",status="404"\} \d+/);
      assert.doesNotMatch(metrics, /swagger-ui-bundle|package\.json/);
    });
  });
});
