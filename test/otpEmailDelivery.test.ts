// An OTP email with the organization's template, templateVariables, a magic link and a logo,
// received by a real SMTP server and parsed: the logo is embedded inline (CID) at its resized size,
// and a logo that cannot be fetched leaves the email without it, with the reason recorded.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';

for (const tdb of testDatabases) {
  describe(`OTP email with template and logo (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let images: http.Server;
    let imageBase: string;
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      const wide = await sharp({ create: { width: 680, height: 100, channels: 4, background: '#3366ff' } }).png().toBuffer();
      images = http.createServer((req, res) => {
        if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(wide);
        else res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not an image</html>');
      });
      await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
      imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, {
        SIGNET_SMTP_URL: smtp.url,
        SIGNET_ALLOW_HTTP_LOGOS: 'true',
        SIGNET_LOGO_ALLOW_PRIVATE: 'true',
      });
      org = await server.createOrganization('Branded');
    });
    after(async () => {
      await server.close();
      await smtp.close();
      images.closeAllConnections();
      images.close();
    });

    test('the built-in email embeds the resized logo and shows the magic link', async () => {
      const client = server.client(org);
      await client.initOtpAuth({
        type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: {
          otpType: 'OTP_TYPE_EMAIL',
          contact: 'olga@example.com',
          appName: 'Branded Wallet',
          emailCustomization: { logoUrl: `${imageBase}/logo.png`, magicLinkTemplate: 'https://wallet.example/login?code=%s' },
        },
      } as any);
      const mail = await smtp.waitForMailTo('olga@example.com');
      const logo = mail.attachments.find((a) => a.contentId === '<logo@signet>' || a.cid === 'logo@signet');
      assert.ok(logo, 'the logo is attached inline');
      const meta = await sharp(logo.content).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['png', 340, 50]);
      // mailparser turns cid: references into data: URLs as it parses.
      assert.match(String(mail.html), /<img src="(cid:logo@signet|data:image\/png;base64,[^"]+)" width="340" height="50"/);
      const code = /\b([0-9A-HJKMNP-TV-Z]{9})\b/.exec(mail.text ?? '')![1]!;
      assert.match(mail.text ?? '', new RegExp(`https://wallet\\.example/login\\?code=${code}`));
      assert.match(String(mail.html), new RegExp(`href="https://wallet\\.example/login\\?code&#x3D;${code}"`));
    });

    test("the organization's template renders the variables; a logo that is not a PNG is left out, with the reason kept", async () => {
      await server.admin('POST', `/organizations/${org.organizationId}/email-templates`, {
        name: 'branded',
        subject: 'Welcome to {{appName}}, {{firstName}}',
        html: '{{#if logoCid}}<img src="cid:{{logoCid}}">{{/if}}<p>Hi {{firstName}}, your code is <b>{{otpCode}}</b> ({{expirationMinutes}} min).</p>',
        text: 'Hi {{firstName}}, your code is {{otpCode}}.',
      });
      const { activity } = (await server.client(org).initOtpAuth({
        type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: {
          otpType: 'OTP_TYPE_EMAIL',
          contact: 'pia@example.com',
          appName: 'Branded Wallet',
          expirationSeconds: '120',
          emailCustomization: { logoUrl: `${imageBase}/page.html`, templateVariables: JSON.stringify({ firstName: 'Pia <3' }) },
        },
      } as any)) as any;
      const mail = await smtp.waitForMailTo('pia@example.com');
      assert.equal(mail.subject, 'Welcome to Branded Wallet, Pia <3');
      assert.match(mail.text ?? '', /^Hi Pia <3, your code is [0-9A-HJKMNP-TV-Z]{9}\.$/);
      assert.match(String(mail.html), /Hi Pia &lt;3, your code is <b>[0-9A-HJKMNP-TV-Z]{9}<\/b> \(2 min\)/);
      assert.doesNotMatch(String(mail.html), /<img/);
      assert.equal(mail.attachments.length, 0);

      const otpId = activity.result.initOtpAuthResultV2.otpId;
      // The email can arrive a moment before the worker records the outcome.
      let status = '';
      const row = await until(
        () => `the outbox row to be sent (it is ${status})`,
        async () => {
          const [current] = await server.db.query<{ status: string; logo_error: string }>('SELECT status, logo_error FROM outbox WHERE otp_id = $1', [otpId]);
          status = current!.status;
          return status === 'sent' && current!;
        },
      );
      assert.match(row.logo_error, /not a PNG/);
    });
  });
}
