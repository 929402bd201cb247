// The code as people see it, through the real HTTP stack: init_otp_auth's email (received by a real
// SMTP server) and default SMS show it in two groups (`30FM-DAGXE`, `123-456`), the email also
// ungrouped; verify_otp takes either form; an organization's template gets {{otpCodeGrouped}} too,
// and the built-in template's own source, stored as an organization's template, renders the same
// email as the built-in one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { BUILT_IN_EMAIL } from '../src/otp/builtInEmail.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';

const GROUPED = /\b([0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{5})\b/;

for (const tdb of testDatabases) {
  describe(`grouped codes (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'otp@signet.test' });
      org = await server.createOrganization('Grouped');
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    async function initOtp(parameters: Record<string, unknown>, credentials: Credentials = org): Promise<string> {
      const { activity } = (await server.client(credentials).initOtpAuth({
        type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
        timestampMs: String(Date.now()),
        organizationId: credentials.organizationId,
        parameters: { otpType: 'OTP_TYPE_EMAIL', appName: 'Acme Wallet', ...parameters },
      } as any)) as any;
      return activity.result.initOtpAuthResultV2.otpId;
    }

    /** Sends an email OTP to a fresh address; the email as the SMTP server received it. */
    async function emailOtp(parameters: Record<string, unknown> = {}, credentials: Credentials = org): Promise<{ otpId: string; mail: ParsedMail }> {
      const contact = `g-${randomUUID().slice(0, 8)}@example.com`;
      const otpId = await initOtp({ contact, ...parameters }, credentials);
      return { otpId, mail: await smtp.waitForMailTo(contact) };
    }

    async function verify(otpId: string, otpCode: string, credentials: Credentials = org): Promise<string> {
      const { activity } = (await server.client(credentials).verifyOtp({
        type: 'ACTIVITY_TYPE_VERIFY_OTP',
        timestampMs: String(Date.now()),
        organizationId: credentials.organizationId,
        parameters: { otpId, otpCode },
      } as any)) as any;
      return activity.result.verifyOtpResult.verificationToken;
    }

    test('the built-in email shows 30FM-DAGXE, and 30FMDAGXE to type; one OTP verifies grouped, another ungrouped', async () => {
      const first = await emailOtp();
      const second = await emailOtp();
      const codes = [first, second].map(({ mail }) => {
        const grouped = GROUPED.exec(mail.text ?? '')?.[1];
        assert.ok(grouped, `the text shows the code in two groups:\n${mail.text}`);
        const ungrouped = grouped.replace('-', '');
        assert.match(mail.text ?? '', new RegExp(`^    ${grouped}$`, 'm'));
        assert.match(mail.text ?? '', new RegExp(`You can also enter it as ${ungrouped}\\.`));
        assert.match(String(mail.html), new RegExp(`monospace">${grouped}</p>`));
        assert.match(String(mail.html), new RegExp(`You can also enter it as ${ungrouped}\\.`));
        return { grouped, ungrouped };
      });
      assert.match(await verify(first.otpId, codes[0]!.grouped), /^ey/);
      assert.match(await verify(second.otpId, codes[1]!.ungrouped), /^ey/);
    });

    test('a six-digit code reads 123-456 and verifies as shown, and typed with a space', async () => {
      const shown = async () => {
        const { otpId, mail } = await emailOtp({ otpLength: 6, alphanumeric: false });
        const grouped = /^ {4}(\d{3}-\d{3})$/m.exec(mail.text ?? '')?.[1];
        assert.ok(grouped, mail.text);
        return { otpId, grouped };
      };
      const one = await shown();
      assert.match(await verify(one.otpId, one.grouped), /^ey/);
      const two = await shown();
      assert.match(await verify(two.otpId, two.grouped.replace('-', ' ')), /^ey/);
    });

    test('the default SMS shows the grouped code, which verifies as shown', async () => {
      const phone = '+14155552680';
      const otpId = await initOtp({ otpType: 'OTP_TYPE_SMS', contact: phone });
      const log = path.join(server.dataDir, 'sms.log');
      const text: string = await until(`an SMS to ${phone}`, () => {
        const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
        return lines.map((line) => JSON.parse(line)).find((sms) => sms.to === phone)?.text;
      });
      const grouped = /^([0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{5}) is your Acme Wallet verification code\. It expires in 5 minutes\.$/.exec(text)?.[1];
      assert.ok(grouped, text);
      assert.match(await verify(otpId, grouped), /^ey/);
    });

    test("an organization's template gets {{otpCodeGrouped}} and {{expiresIn}}; the built-in source as a template makes the built-in email", async () => {
      const own = await server.createOrganization('Own templates');
      const builtIn = await emailOtp({ expirationSeconds: '90' }, own);

      await server.admin('POST', `/organizations/${own.organizationId}/email-templates`, { name: 'copy of the built-in', ...BUILT_IN_EMAIL });
      const copy = await emailOtp({ expirationSeconds: '90' }, own);
      // The same email but for the code: every form of it replaced by a placeholder.
      const withoutCode = (mail: ParsedMail) => {
        const grouped = GROUPED.exec(mail.text ?? '')![1]!;
        const blank = (s: string) => s.split(grouped).join('GROUPED').split(grouped.replace('-', '')).join('CODE');
        return { subject: mail.subject, html: blank(String(mail.html)), text: blank(mail.text ?? '') };
      };
      assert.deepEqual(withoutCode(copy.mail), withoutCode(builtIn.mail));
      assert.match(withoutCode(builtIn.mail).text, /It expires in 90 seconds\./);

      await server.admin('POST', `/organizations/${own.organizationId}/email-templates`, {
        name: 'grouped only',
        subject: '{{appName}}: {{otpCodeGrouped}}',
        html: '<p>Your code: <b>{{otpCodeGrouped}}</b>, for {{expiresIn}}.</p>',
        text: 'Your code: {{otpCodeGrouped}} ({{otpCode}}), for {{expiresIn}}.',
      });
      const { otpId, mail } = await emailOtp({}, own);
      const [, grouped, ungrouped] = /^Your code: ([0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{5}) \(([0-9A-HJKMNP-TV-Z]{9})\), for 5 minutes\.$/.exec(mail.text ?? '') ?? [];
      assert.ok(grouped, mail.text);
      assert.equal(grouped.replace('-', ''), ungrouped);
      assert.equal(mail.subject, `Acme Wallet: ${grouped}`);
      assert.equal(String(mail.html), `<p>Your code: <b>${grouped}</b>, for 5 minutes.</p>`);
      assert.match(await verify(otpId, grouped, own), /^ey/);
    });
  });
}
