// The init_otp_auth handler on its own: every parameter rule with the field it names on the wire,
// the echoed intent with defaults, and the planned effect written by the engine on real stores (PGlite, and PostgreSQL when
// configured): the hashed OTP row, its expiry, the outbox message, sender domains.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { initOtpAuth, initOtpAuthParameters } from '../src/activities/handlers/auth/initOtpAuth.ts';
import { fieldViolations } from '../src/wire/violations.ts';
import { loadConfig } from '../src/config.ts';
import type { StoredPayload } from '../src/otp/messages.ts';
import { decryptCode } from '../src/otp/sealedCode.ts';
import { SignetError } from '../src/errors.ts';
import { hashOtpCode } from '../src/otp/code.ts';
import type { Database } from '../src/store/db.ts';
import { runActivity } from './support/activities.ts';
import { testDatabases } from './support/databases.ts';

const EMAIL = { otpType: 'OTP_TYPE_EMAIL', contact: 'alice@example.com', appName: 'Acme Wallet' };
const SMS = { otpType: 'OTP_TYPE_SMS', contact: '+1 415 555 2671', appName: 'Acme Wallet' };

/**
 * The wire's field violations for these parameters (empty when they are valid). reportInput lets
 * fieldViolations tell a missing field from one of the wrong type (zod 4 leaves `input` out otherwise).
 */
function violations(parameters: Record<string, unknown>) {
  const parsed = initOtpAuthParameters.safeParse(parameters, { reportInput: true });
  return parsed.success ? [] : fieldViolations(parsed.error, 'parameters');
}

function rejects(parameters: Record<string, unknown>, field: string, description?: RegExp) {
  const found = violations(parameters);
  const named = found.filter((v) => v.field === field);
  assert.ok(named.length > 0, `expected ${field} in ${JSON.stringify(found)} for ${JSON.stringify(parameters)}`);
  if (description) assert.match(named[0]!.description, description);
}

function accepts(parameters: Record<string, unknown>) {
  assert.deepEqual(violations(parameters), [], JSON.stringify(parameters));
}

describe('init_otp_auth parameters', () => {
  test('wire names', () => {
    assert.equal(initOtpAuth.path, 'init_otp_auth');
    assert.equal(initOtpAuth.activityType, 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3');
    assert.equal(initOtpAuth.intentKey, 'initOtpAuthIntentV3');
    assert.equal(initOtpAuth.resultKey, 'initOtpAuthResultV2');
  });

  test('each required field missing is named', () => {
    for (const field of ['otpType', 'contact', 'appName']) {
      const parameters: Record<string, unknown> = { ...EMAIL };
      delete parameters[field];
      rejects(parameters, `parameters.${field}`, /required field is missing/);
    }
  });

  test('the intent fills every default and echoes the rest', () => {
    assert.deepEqual(initOtpAuthParameters.parse(EMAIL), {
      ...EMAIL,
      otpLength: 9,
      alphanumeric: true,
      expirationSeconds: '300',
      sendFromEmailSenderName: 'Notifications',
    });
    const given = {
      ...EMAIL,
      otpLength: 6,
      alphanumeric: false,
      expirationSeconds: '60',
      sendFromEmailSenderName: 'Acme Security',
      sendFromEmailAddress: 'hello@acme.example',
      replyToEmailAddress: 'support@acme.example',
      emailCustomization: {
        logoUrl: 'https://acme.example/logo.png',
        magicLinkTemplate: 'https://acme.example/login?code=%s',
        templateVariables: '{"name":"Alice"}',
      },
      userIdentifier: 'b5bb9d8014a0f9b1d61e21e796d78dccdf1352f23cd32812f4850b878ae4944c',
    };
    assert.deepEqual(initOtpAuthParameters.parse(given), given);
  });

  test('an empty or blank sender name becomes Notifications', () => {
    for (const name of ['', '   ']) {
      assert.equal(initOtpAuthParameters.parse({ ...EMAIL, sendFromEmailSenderName: name }).sendFromEmailSenderName, 'Notifications');
    }
  });

  test('contact: an email address is echoed in lowercase, a phone number becomes E.164', () => {
    assert.equal(initOtpAuthParameters.parse({ ...EMAIL, contact: 'Alice@Example.com' }).contact, 'alice@example.com');
    const sms = initOtpAuthParameters.parse({ ...SMS, contact: '+44 (0) 20 7946 0958' });
    assert.equal(sms.contact, '+442079460958');
    // An SMS intent carries no email fields, not even the sender name default.
    assert.equal(sms.sendFromEmailSenderName, undefined);
  });

  test('contact must match otpType', () => {
    rejects({ ...EMAIL, contact: '+14155550123' }, 'parameters.contact', /phone number, but otpType is OTP_TYPE_EMAIL/);
    rejects({ ...SMS, contact: 'alice@example.com' }, 'parameters.contact', /email address, but otpType is OTP_TYPE_SMS/);
    rejects({ ...EMAIL, contact: 'alice' }, 'parameters.contact', /must be an email address/);
    rejects({ ...SMS, contact: '4155552671' }, 'parameters.contact', /must start with \+/);
    rejects({ ...SMS, contact: '+1 555 555 5555' }, 'parameters.contact', /not a valid phone number/);
    rejects({ ...EMAIL, contact: 'a'.repeat(250) + '@example.com' }, 'parameters.contact', /longer than 254/);
  });

  test('otpType must be one of the two', () => {
    rejects({ ...EMAIL, otpType: 'OTP_TYPE_FAX' }, 'parameters.otpType', /OTP_TYPE_EMAIL or OTP_TYPE_SMS/);
  });

  test('otpLength is a whole number from 6 to 9', () => {
    rejects({ ...EMAIL, otpLength: 5 }, 'parameters.otpLength', /from 6 to 9/);
    accepts({ ...EMAIL, otpLength: 6 });
    accepts({ ...EMAIL, otpLength: 9 });
    rejects({ ...EMAIL, otpLength: 10 }, 'parameters.otpLength', /from 6 to 9/);
    rejects({ ...EMAIL, otpLength: 7.5 }, 'parameters.otpLength');
    rejects({ ...EMAIL, otpLength: '9' }, 'parameters.otpLength');
  });

  test('alphanumeric is a boolean', () => {
    rejects({ ...EMAIL, alphanumeric: 'true' }, 'parameters.alphanumeric', /true or false/);
    assert.equal(initOtpAuthParameters.parse({ ...EMAIL, alphanumeric: false }).alphanumeric, false);
  });

  test('expirationSeconds is a string of digits from 1 to 600', () => {
    for (const bad of ['0', '601', 'abc', '', '060', '1e2', ' 300', '-1', '300.0']) {
      rejects({ ...EMAIL, expirationSeconds: bad }, 'parameters.expirationSeconds', /from 1 to 600/);
    }
    rejects({ ...EMAIL, expirationSeconds: 300 }, 'parameters.expirationSeconds', /string of digits/);
    for (const good of ['1', '600', '300', '45']) {
      assert.equal(initOtpAuthParameters.parse({ ...EMAIL, expirationSeconds: good }).expirationSeconds, good);
    }
  });

  test('appName is required, non-empty, one line and bounded', () => {
    rejects({ ...EMAIL, appName: '' }, 'parameters.appName', /must not be empty/);
    rejects({ ...EMAIL, appName: '  ' }, 'parameters.appName', /must not be empty/);
    rejects({ ...EMAIL, appName: 'Acme\r\nBcc: victim@example.com' }, 'parameters.appName', /line break/);
    accepts({ ...EMAIL, appName: 'a'.repeat(100) });
    rejects({ ...EMAIL, appName: 'a'.repeat(101) }, 'parameters.appName', /longer than 100/);
  });

  test('header injection in the sender name and addresses is refused', () => {
    rejects({ ...EMAIL, sendFromEmailSenderName: 'Evil\r\nBcc: victim@example.com' }, 'parameters.sendFromEmailSenderName', /line break/);
    rejects({ ...EMAIL, sendFromEmailSenderName: 'Evil\u0000' }, 'parameters.sendFromEmailSenderName', /control/);
    rejects({ ...EMAIL, sendFromEmailSenderName: 'x'.repeat(101) }, 'parameters.sendFromEmailSenderName', /longer than 100/);
    for (const field of ['sendFromEmailAddress', 'replyToEmailAddress', 'contact']) {
      rejects({ ...EMAIL, [field]: 'a@acme.example\r\nBcc: victim@example.com' }, `parameters.${field}`, /line break/);
      rejects({ ...EMAIL, [field]: 'a@acme.example,victim@example.com' }, `parameters.${field}`, /comma/);
      rejects({ ...EMAIL, [field]: 'Acme <a@acme.example>' }, `parameters.${field}`);
      rejects({ ...EMAIL, [field]: '"a"@acme.example' }, `parameters.${field}`, /quote/);
    }
    rejects({ ...EMAIL, sendFromEmailAddress: '' }, 'parameters.sendFromEmailAddress', /empty/);
  });

  test('emailCustomization.logoUrl is an https URL (http is judged by execute, against the configuration)', () => {
    accepts({ ...EMAIL, emailCustomization: { logoUrl: 'https://cdn.acme.example/logo.png' } });
    accepts({ ...EMAIL, emailCustomization: { logoUrl: 'http://cdn.acme.example/logo.png' } });
    rejects({ ...EMAIL, emailCustomization: { logoUrl: 'javascript:alert(1)' } }, 'parameters.emailCustomization.logoUrl', /https/);
    rejects({ ...EMAIL, emailCustomization: { logoUrl: 'logo.png' } }, 'parameters.emailCustomization.logoUrl', /absolute URL/);
    rejects({ ...EMAIL, emailCustomization: { logoUrl: 'https://u:p@cdn.acme.example/logo.png' } }, 'parameters.emailCustomization.logoUrl', /password/);
    rejects({ ...EMAIL, emailCustomization: { logoUrl: 'https://cdn.acme.example/\nlogo.png' } }, 'parameters.emailCustomization.logoUrl', /whitespace/);
    rejects({ ...EMAIL, emailCustomization: { logoUrl: `https://acme.example/${'a'.repeat(2048)}` } }, 'parameters.emailCustomization.logoUrl', /longer than 2048/);
  });

  test('emailCustomization.magicLinkTemplate is a URL with exactly one %s', () => {
    const field = 'parameters.emailCustomization.magicLinkTemplate';
    accepts({ ...EMAIL, emailCustomization: { magicLinkTemplate: 'https://app.example/auth/%s' } });
    accepts({ ...EMAIL, emailCustomization: { magicLinkTemplate: 'http://localhost:3000/login?code=%s' } });
    rejects({ ...EMAIL, emailCustomization: { magicLinkTemplate: 'https://app.example/login' } }, field, /exactly one %s.*found 0/);
    rejects({ ...EMAIL, emailCustomization: { magicLinkTemplate: 'https://app.example/%s/%s' } }, field, /exactly one %s.*found 2/);
    rejects({ ...EMAIL, emailCustomization: { magicLinkTemplate: 'http://app.example/%s' } }, field, /https/);
    rejects({ ...EMAIL, emailCustomization: { magicLinkTemplate: 'javascript:alert(%s)' } }, field, /https/);
    rejects({ ...EMAIL, emailCustomization: { magicLinkTemplate: '/login/%s' } }, field, /absolute URL/);
  });

  test('emailCustomization.templateVariables is a JSON object of strings', () => {
    const field = 'parameters.emailCustomization.templateVariables';
    accepts({ ...EMAIL, emailCustomization: { templateVariables: '{"name":"Alice","plan":"gold"}' } });
    accepts({ ...EMAIL, emailCustomization: { templateVariables: '{}' } });
    rejects({ ...EMAIL, emailCustomization: { templateVariables: '{name: Alice}' } }, field, /not valid JSON/);
    rejects({ ...EMAIL, emailCustomization: { templateVariables: '["Alice"]' } }, field, /JSON object/);
    rejects({ ...EMAIL, emailCustomization: { templateVariables: 'null' } }, field, /JSON object/);
    rejects({ ...EMAIL, emailCustomization: { templateVariables: '{"age":42}' } }, field, /not a string \(key "age"\)/);
    rejects({ ...EMAIL, emailCustomization: { templateVariables: { name: 'Alice' } } }, field, /must be a string/);
    const huge = JSON.stringify({ blob: 'x'.repeat(16_384) });
    rejects({ ...EMAIL, emailCustomization: { templateVariables: huge } }, field, /longer than 16384/);
  });

  test('emailCustomization.templateId is a UUID', () => {
    accepts({ ...EMAIL, emailCustomization: { templateId: randomUUID() } });
    rejects({ ...EMAIL, emailCustomization: { templateId: 'welcome' } }, 'parameters.emailCustomization.templateId', /UUID/);
  });

  test('smsCustomization.template holds {{.OtpCode}}, only known tags, at most 320 characters', () => {
    const field = 'parameters.smsCustomization.template';
    accepts({ ...SMS, smsCustomization: { template: 'Your {{.AppName}} code is {{.OtpCode}}' } });
    accepts({ ...SMS, smsCustomization: { template: '{{.OtpCode}}\nis your code' } });
    accepts({ ...SMS, smsCustomization: {} });
    rejects({ ...SMS, smsCustomization: { template: 'Your code is ready' } }, field, /must contain \{\{\.OtpCode\}\}/);
    rejects({ ...SMS, smsCustomization: { template: 'Hi {{.UserName}}, code {{.OtpCode}}' } }, field, /only the tags/);
    rejects({ ...SMS, smsCustomization: { template: 'Code {{ .OtpCode }} {{.OtpCode}}' } }, field, /only the tags/);
    rejects({ ...SMS, smsCustomization: { template: 'Code {{.OtpCode}} }}' } }, field, /only the tags/);
    const at320 = '{{.OtpCode}}' + 'x'.repeat(320 - 12);
    accepts({ ...SMS, smsCustomization: { template: at320 } });
    rejects({ ...SMS, smsCustomization: { template: at320 + 'x' } }, field, /longer than 320/);
    // Characters, not UTF-16 units: 308 emoji plus the tag is 320 characters.
    accepts({ ...SMS, smsCustomization: { template: '{{.OtpCode}}' + '🔐'.repeat(308) } });
  });

  test('the SMS the template makes, app name and code filled in, is at most 320 characters', () => {
    const field = 'parameters.smsCustomization.template';
    const appName = 'A'.repeat(100);
    const template = '{{.OtpCode}} ' + '{{.AppName}} '.repeat(3);
    // 9 + 1 + 3 × 101 = 313 characters: fits.
    accepts({ ...SMS, appName, smsCustomization: { template } });
    rejects({ ...SMS, appName, smsCustomization: { template: template + '{{.AppName}}' } }, field, /SMS of 413 characters .* at most 320/);
    // The same template is fine with a short name.
    accepts({ ...SMS, appName: 'Acme', smsCustomization: { template: template + '{{.AppName}}' } });
  });

  test('userIdentifier is a bounded non-empty string', () => {
    accepts({ ...SMS, userIdentifier: 'a'.repeat(256) });
    rejects({ ...SMS, userIdentifier: 'a'.repeat(257) }, 'parameters.userIdentifier', /longer than 256/);
    rejects({ ...SMS, userIdentifier: '' }, 'parameters.userIdentifier', /must not be empty/);
  });

  test('unknown keys are refused at the top level and inside both customizations', () => {
    rejects({ ...EMAIL, otp_type: 'x' }, 'parameters.otp_type', /unknown field/);
    rejects({ ...EMAIL, emailCustomization: { logoURL: 'https://a.example/l.png' } }, 'parameters.emailCustomization.logoURL', /unknown field/);
    rejects({ ...SMS, smsCustomization: { template: '{{.OtpCode}}', sender: 'Acme' } }, 'parameters.smsCustomization.sender', /unknown field/);
    rejects({ ...EMAIL, emailCustomization: 'https://a.example' }, 'parameters.emailCustomization', /must be an object/);
  });

  test('fields of the other channel are refused, unless empty', () => {
    for (const [field, value] of [
      ['sendFromEmailAddress', 'hello@acme.example'],
      ['sendFromEmailSenderName', 'Acme'],
      ['replyToEmailAddress', 'support@acme.example'],
      ['emailCustomization', { logoUrl: 'https://acme.example/logo.png' }],
    ] as const) {
      rejects({ ...SMS, [field]: value }, `parameters.${field}`, /applies only to OTP_TYPE_EMAIL/);
    }
    rejects({ ...EMAIL, smsCustomization: { template: '{{.OtpCode}}' } }, 'parameters.smsCustomization', /applies only to OTP_TYPE_SMS/);
    accepts({ ...SMS, sendFromEmailSenderName: '', emailCustomization: {} });
    accepts({ ...EMAIL, smsCustomization: {} });
  });

  test('one response names every problem at once', () => {
    const fields = violations({ otpType: 'OTP_TYPE_SMS', contact: 'alice@example.com', otpLength: 12 }).map((v) => v.field);
    assert.deepEqual(new Set(fields), new Set(['parameters.appName', 'parameters.otpLength', 'parameters.contact']));
  });
});

for (const tdb of testDatabases) {
  describe(`init_otp_auth execute (${tdb.name})`, () => {
    let db: Database;
    const organizationId = randomUUID();
    const otherOrganizationId = randomUUID();
    const secret = randomBytes(32);
    const config = loadConfig({});

    before(async () => {
      db = await tdb.open();
      for (const [id, name] of [[organizationId, 'Acme'], [otherOrganizationId, 'Other']]) {
        await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, name]);
      }
      await db.query('INSERT INTO sender_domains (id, organization_id, domain) VALUES ($1, $2, $3)', [
        randomUUID(), organizationId, 'acme.example',
      ]);
      await db.query('INSERT INTO sender_domains (id, organization_id, domain) VALUES ($1, $2, $3)', [
        randomUUID(), otherOrganizationId, 'other.example',
      ]);
    });
    after(async () => {
      await db.close();
    });

    /** Runs the handler through the engine: the activity, its OTP row and outbox message in one statement. */
    async function run(parameters: Record<string, unknown>, now = new Date('2026-11-22T10:00:00.123Z'), withConfig = config) {
      const activity = await runActivity(db, initOtpAuth, { organizationId, parameters, config: withConfig, secret, now });
      return { activityId: activity.id, otpId: activity.result.otpId as string, now };
    }

    async function otpRow(otpId: string) {
      const rows = await db.query<Record<string, unknown>>('SELECT * FROM otps WHERE id = $1', [otpId]);
      assert.equal(rows.length, 1);
      return rows[0]!;
    }

    async function count(table: string) {
      return (await db.query(`SELECT id FROM ${table}`)).length;
    }

    test('an http logoUrl is refused unless SIGNET_ALLOW_HTTP_LOGOS', async () => {
      const parameters = { ...EMAIL, emailCustomization: { logoUrl: 'http://cdn.acme.example/logo.png' } };
      await assert.rejects(run(parameters), (e: any) => e.fieldViolations?.[0]?.field === 'parameters.emailCustomization.logoUrl');
      const allowed = { ...config, allowHttpLogos: true };
      await run(parameters, new Date(), allowed);
    });

    test('an email OTP: one row with the keyed hash and the expiry, one queued outbox message', async () => {
      const { activityId, otpId, now } = await run({ ...EMAIL, userIdentifier: 'user-7' });
      assert.match(otpId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const row = await otpRow(otpId);
      assert.equal(row.organization_id, organizationId);
      assert.equal(row.activity_id, activityId);
      assert.equal(row.otp_type, 'OTP_TYPE_EMAIL');
      assert.equal(row.contact, 'alice@example.com');
      assert.equal(row.otp_length, 9);
      assert.equal(row.alphanumeric, true);
      assert.equal(row.user_identifier, 'user-7');
      assert.equal(row.failed_attempts, 0);
      assert.equal(row.used_at, null);
      assert.match(String(row.code_hash), /^[0-9a-f]{64}$/);
      assert.equal((row.expires_at as Date).getTime(), now.getTime() + 300_000);

      const outbox = await db.query<Record<string, unknown>>('SELECT * FROM outbox WHERE otp_id = $1', [otpId]);
      assert.equal(outbox.length, 1);
      assert.equal(outbox[0]!.channel, 'email');
      assert.equal(outbox[0]!.organization_id, organizationId);
      assert.equal(outbox[0]!.status, 'queued');
      // The code the worker will send is the one hashed in the row, and the row does not hold it.
      const payload = outbox[0]!.payload as StoredPayload;
      const code = decryptCode(secret, String(outbox[0]!.id), payload.encryptedCode!);
      assert.match(code, /^[0-9A-HJKMNP-TV-Z]{9}$/);
      assert.equal(hashOtpCode(secret, otpId, code), row.code_hash);
      assert.ok(!JSON.stringify(row).includes(code));
      assert.ok(!JSON.stringify(outbox).includes(code));
      assert.equal(payload.to, 'alice@example.com');
      assert.equal(payload.channel === 'email' && payload.fromName, 'Notifications');
    });

    test('the code is recoverable only through its hash and appears in no column', async () => {
      // A 6-digit code has a million candidates: finding the one whose hash matches proves the row
      // holds HMAC(secret, id, code) and gives the code to look for in every column.
      const { otpId } = await run({ ...SMS, otpLength: 6, alphanumeric: false });
      const row = await otpRow(otpId);
      let code: string | undefined;
      for (let n = 0; n < 1_000_000 && code === undefined; n++) {
        const candidate = String(n).padStart(6, '0');
        if (hashOtpCode(secret, otpId, candidate) === row.code_hash) code = candidate;
      }
      assert.ok(code, 'one 6-digit code matches the stored hash');
      assert.ok(!Object.values(row).some((value) => String(value instanceof Date ? value.toISOString() : value).includes(code!)));
      assert.notEqual(hashOtpCode(randomBytes(32), otpId, code!), row.code_hash, 'the hash depends on the secret');
      const outbox = await db.query<Record<string, unknown>>('SELECT * FROM outbox WHERE otp_id = $1', [otpId]);
      assert.equal(outbox.length, 1);
      assert.equal(outbox[0]!.channel, 'sms');
      assert.ok(!JSON.stringify(outbox[0]).includes(`"${code}"`), 'the outbox holds the code only encrypted');
      assert.ok(!JSON.stringify(outbox[0]!.payload).includes(code!), 'the outbox payload holds the code only encrypted');
    });

    test('an SMS OTP stores the E.164 number', async () => {
      const { otpId } = await run({ ...SMS, contact: '+49 30 901820', smsCustomization: { template: '{{.OtpCode}}' } });
      const row = await otpRow(otpId);
      assert.equal(row.otp_type, 'OTP_TYPE_SMS');
      assert.equal(row.contact, '+4930901820');
    });

    test('expiry is now plus expirationSeconds, at both ends of the range', async () => {
      for (const seconds of [1, 600]) {
        const { otpId, now } = await run({ ...EMAIL, expirationSeconds: String(seconds) });
        assert.equal(((await otpRow(otpId)).expires_at as Date).getTime(), now.getTime() + seconds * 1000);
      }
    });

    test('sendFromEmailAddress on an unregistered domain is refused and nothing is written', async () => {
      const before = { otps: await count('otps'), outbox: await count('outbox'), activities: await count('activities') };
      for (const address of ['hello@unknown.example', 'hello@other.example', 'hello@sub.acme.example']) {
        await assert.rejects(run({ ...EMAIL, sendFromEmailAddress: address }), (error: unknown) => {
          assert.ok(error instanceof SignetError);
          assert.equal(error.status, 400);
          assert.equal(error.fieldViolations[0]!.field, 'parameters.sendFromEmailAddress');
          assert.match(error.message, new RegExp(`domain ${address.split('@')[1]!.replace(/\./g, '\\.')} is not registered`));
          // It names the command that registers the domain, for this organization and domain.
          assert.ok(error.message.includes(`\`signet sender-domain add --org ${organizationId} --domain ${address.split('@')[1]}\``), error.message);
          return true;
        });
      }
      assert.deepEqual(
        { otps: await count('otps'), outbox: await count('outbox'), activities: await count('activities') },
        before,
      );
    });

    test('sendFromEmailAddress on a registered domain is accepted, whatever its case', async () => {
      const { otpId } = await run({
        ...EMAIL,
        sendFromEmailAddress: 'Hello@ACME.example',
        sendFromEmailSenderName: 'Acme Security',
        replyToEmailAddress: 'support@acme.example',
      });
      assert.equal((await otpRow(otpId)).contact, 'alice@example.com');
    });

    test('an emailCustomization.templateId names no template yet and is refused', async () => {
      const templateId = randomUUID();
      const before = await count('otps');
      await assert.rejects(run({ ...EMAIL, emailCustomization: { templateId } }), (error: unknown) => {
        assert.ok(error instanceof SignetError);
        assert.equal(error.status, 400);
        assert.equal(error.fieldViolations[0]!.field, 'parameters.emailCustomization.templateId');
        assert.match(error.message, new RegExp(`no email template with id ${templateId}`));
        return true;
      });
      assert.equal(await count('otps'), before);
    });
  });
}
