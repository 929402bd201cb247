// Email templates: their rules and rendering (the built-in email is one of them, with the same
// variables), the admin API that stores them, and init_otp_auth's choice of template (the given
// templateId, else the newest, else the built-in email).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { BUILT_IN_EMAIL } from '../src/otp/builtInEmail.ts';
import { emailTemplateProblems, renderEmailTemplate, RESERVED_VARIABLES } from '../src/otp/emailTemplates.ts';
import { otpEmailVariables } from '../src/otp/messages.ts';
import { testDatabases } from './support/databases.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';

const good = {
  subject: '{{appName}} sign-in code',
  html: '<p>Hello {{name}}, your code is <b>{{otpCode}}</b>.</p>{{#if magicLink}}<a href="{{magicLink}}">Sign in</a>{{/if}}',
  text: 'Hello {{name}}, your code is {{otpCode}}.',
};

describe('template rules', () => {
  test('a good template has no problems', () => {
    assert.deepEqual(emailTemplateProblems(good), []);
  });

  test('raw HTML output, partials, bad syntax, a missing code and a two-line subject are refused', () => {
    const fields = (parts: Partial<typeof good>) => emailTemplateProblems({ ...good, ...parts }).map((p) => p.field);
    assert.deepEqual(fields({ html: '<p>{{{name}}} {{otpCode}}</p>' }), ['html']);
    assert.deepEqual(fields({ html: '<p>{{& name}} {{otpCode}}</p>' }), ['html']);
    assert.deepEqual(fields({ html: '{{> header}} {{otpCode}}' }), ['html']);
    assert.deepEqual(fields({ text: '{{#if x}}unclosed' }), ['text']);
    assert.deepEqual(fields({ html: '<p>{{lookup this "x"}} {{otpCode}}</p>' }), []);
    assert.deepEqual(fields({ html: '<p>{{myHelper name}} {{otpCode}}</p>' }), ['html']);
    assert.deepEqual(fields({ html: '<p>no code here</p>' }), ['html']);
    assert.deepEqual(fields({ subject: 'one\ntwo' }), ['subject']);
    assert.deepEqual(fields({ subject: '  ' }), ['subject']);
  });

  test('the grouped code alone carries the code too', () => {
    assert.deepEqual(emailTemplateProblems({ ...good, html: '<p>{{otpCodeGrouped}}</p>' }), []);
  });

  test('the built-in email is a template that follows the same rules', () => {
    assert.deepEqual(emailTemplateProblems(BUILT_IN_EMAIL), []);
  });

  test('an email is rendered with every variable Signet reserves, and no other but templateVariables', () => {
    const email = {
      channel: 'email' as const, to: 'a@example.com', appName: 'Acme', fromName: 'N', expirationSeconds: 90,
      magicLinkTemplate: 'https://app.example/login?code=%s', templateVariables: { plan: 'gold' },
    };
    const { custom, ...provided } = otpEmailVariables(email, '30FMDAGXE', { cid: 'logo@signet', width: 340, height: 50 });
    assert.deepEqual(Object.keys(provided).sort(), [...RESERVED_VARIABLES].sort());
    assert.deepEqual(custom, { plan: 'gold' });
    assert.deepEqual(
      { ...provided },
      {
        otpCode: '30FMDAGXE', otpCodeGrouped: '30FM-DAGXE', appName: 'Acme', expirationMinutes: '2', expiresIn: '90 seconds',
        magicLink: 'https://app.example/login?code=30FMDAGXE', logoCid: 'logo@signet', logoWidth: '340', logoHeight: '50',
      },
    );
  });
});

describe('template rendering', () => {
  test('variables are HTML-escaped in the HTML part, and the reserved ones cannot be replaced', () => {
    const rendered = renderEmailTemplate(good, {
      otpCode: 'K7Q2M9XH4',
      otpCodeGrouped: 'K7Q2-M9XH4',
      appName: 'Acme',
      expirationMinutes: '5',
      expiresIn: '5 minutes',
      magicLink: 'https://app.example/login?code=K7Q2M9XH4&x=1',
      custom: { name: '<script>alert(1)</script>', otpCode: 'FAKE' },
    });
    assert.equal(rendered.subject, 'Acme sign-in code');
    assert.match(rendered.html, /Hello &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(rendered.html, /<b>K7Q2M9XH4<\/b>/);
    // Handlebars escapes "=" too (&#x3D;): still the same URL to a browser.
    assert.match(rendered.html, /href="https:\/\/app\.example\/login\?code&#x3D;K7Q2M9XH4&amp;x&#x3D;1"/);
    assert.equal(rendered.text, 'Hello <script>alert(1)</script>, your code is K7Q2M9XH4.');
    assert.doesNotMatch(rendered.html + rendered.text, /FAKE/);
  });

  test('a variable cannot break the subject onto a second header line', () => {
    const rendered = renderEmailTemplate({ ...good, subject: 'Hi {{name}}' }, {
      otpCode: '1', otpCodeGrouped: '1', appName: 'A', expirationMinutes: '5', expiresIn: '5 minutes', custom: { name: 'x\r\nBcc: victim@example.com' },
    });
    assert.equal(rendered.subject, 'Hi x Bcc: victim@example.com');
  });

  test('prototype properties are not reachable', () => {
    const rendered = renderEmailTemplate({ ...good, text: '[{{constructor}}][{{__proto__}}] {{otpCode}}' }, {
      otpCode: '1', otpCodeGrouped: '1', appName: 'A', expirationMinutes: '5', expiresIn: '5 minutes',
    });
    assert.equal(rendered.text, '[][] 1');
  });
});

for (const tdb of testDatabases) {
  describe(`email templates through the admin API and init_otp_auth (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;

    async function admin(method: string, route: string, body?: unknown) {
      const response = await fetch(`${server.baseUrl}/admin/v1${route}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, json: (await response.json()) as any };
    }

    async function submitOtp(parameters: Record<string, unknown>) {
      const body = JSON.stringify({
        type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'kim@example.com', appName: 'Acme', ...parameters },
      });
      const stamp = await new ApiKeyStamper(org).stamp(body);
      const response = await fetch(`${server.baseUrl}/public/v1/submit/init_otp_auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
        body,
      });
      return { status: response.status, json: (await response.json()) as any };
    }

    async function queuedTemplateId(otpId: string): Promise<string | undefined> {
      const [row] = await server.db.query<{ payload: { templateId?: string } }>('SELECT payload FROM outbox WHERE otp_id = $1', [otpId]);
      return row!.payload.templateId;
    }

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Templates');
    });
    after(() => server.close());

    test('without templates the built-in email is used; an unknown templateId is a 400', async () => {
      const plain = await submitOtp({});
      assert.equal(plain.status, 200);
      assert.equal(await queuedTemplateId(plain.json.activity.result.initOtpAuthResultV2.otpId), undefined);
      const unknown = await submitOtp({ emailCustomization: { templateId: '00000000-0000-4000-8000-000000000000' } });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.json.details[0].fieldViolations[0].field, 'parameters.emailCustomization.templateId');
    });

    test('add, list newest first, choose by id or the newest, remove', async () => {
      const bad = await admin('POST', `/organizations/${org.organizationId}/email-templates`, { ...good, html: '{{{x}}}' });
      assert.equal(bad.status, 400);
      assert.ok(bad.json.details[0].fieldViolations.some((v: any) => v.field === 'html'));

      const first = await admin('POST', `/organizations/${org.organizationId}/email-templates`, { ...good, name: 'first' });
      assert.equal(first.status, 200);
      const second = await admin('POST', `/organizations/${org.organizationId}/email-templates`, { ...good, name: 'second' });
      const list = await admin('GET', `/organizations/${org.organizationId}/email-templates`);
      assert.deepEqual(list.json.emailTemplates.map((t: any) => t.name), ['second', 'first']);

      const newest = await submitOtp({ contact: 'lee@example.com' });
      assert.equal(await queuedTemplateId(newest.json.activity.result.initOtpAuthResultV2.otpId), second.json.templateId);
      const chosen = await submitOtp({ contact: 'max@example.com', emailCustomization: { templateId: first.json.templateId } });
      assert.equal(chosen.status, 200, JSON.stringify(chosen.json));
      assert.equal(await queuedTemplateId(chosen.json.activity.result.initOtpAuthResultV2.otpId), first.json.templateId);

      // Another organization can neither use nor remove them.
      const other = await server.createOrganization('Other');
      const foreign = await admin('DELETE', `/organizations/${other.organizationId}/email-templates/${first.json.templateId}`);
      assert.equal(foreign.status, 404);

      assert.equal((await admin('DELETE', `/organizations/${org.organizationId}/email-templates/${first.json.templateId}`)).status, 200);
      assert.equal((await admin('DELETE', `/organizations/${org.organizationId}/email-templates/${first.json.templateId}`)).status, 404);
      const gone = await submitOtp({ contact: 'ned@example.com', emailCustomization: { templateId: first.json.templateId } });
      assert.equal(gone.status, 400);
    });
  });
}
