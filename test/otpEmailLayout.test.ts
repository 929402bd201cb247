// The built-in OTP email on a phone and on a desktop, in headless Chromium: the HTML as a real SMTP
// server received it (its cid: logo made a data: URL, as a mail client shows it) is loaded at 375 px
// and 1280 px wide, and nothing may scroll sideways, while the app name, the code (on one line), the
// logo, the button and the footer lie fully within the page's width. Once plain, once with a logo,
// a long unbroken app name and a magic link.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { chromiumMissing, launchChromium } from './support/chromium.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

const VIEWPORTS = [375, 1280];
const GROUPED = /\b([0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{5})\b/;

/** The HTML as a mail client shows it: every cid: reference replaced by its attachment as a data: URL. */
function displayedHtml(mail: ParsedMail): string {
  let html = String(mail.html);
  for (const attachment of mail.attachments) {
    const cid = (attachment.cid ?? attachment.contentId ?? '').replace(/^<|>$/g, '');
    if (cid) html = html.split(`cid:${cid}`).join(`data:${attachment.contentType};base64,${attachment.content.toString('base64')}`);
  }
  assert.doesNotMatch(html, /src="cid:/, 'every inline image is resolved');
  return html;
}

/** Where things lie on the page: boxes of the text itself (a Range), so text overflowing its box counts. */
interface Layout {
  innerWidth: number;
  scrollWidth: number;
  boxes: Record<string, { left: number; right: number; top: number; bottom: number } | null>;
}

describe('the built-in OTP email in a browser, on a phone and on a desktop', { skip: chromiumMissing }, () => {
  const tdb = testDatabases[0]!;
  let smtp: SmtpSink;
  let images: http.Server;
  let imageBase: string;
  let server: TestServer;
  let org: Credentials;
  let browser: Browser;

  before(async () => {
    const wide = await sharp({ create: { width: 680, height: 100, channels: 4, background: '#3366ff' } }).png().toBuffer();
    images = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(wide));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    smtp = await startSmtpSink();
    [server, browser] = await Promise.all([
      startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_ALLOW_HTTP_LOGOS: 'true', SIGNET_LOGO_ALLOW_PRIVATE: 'true' }),
      launchChromium(),
    ]);
    org = await server.createOrganization('Layout');
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
    images.closeAllConnections();
    images.close();
  });

  let contacts = 0;
  async function deliveredEmail(parameters: Record<string, unknown>): Promise<ParsedMail> {
    const contact = `layout${++contacts}@example.com`;
    await server.client(org).initOtpAuth({
      type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
      timestampMs: String(Date.now()),
      organizationId: org.organizationId,
      parameters: { otpType: 'OTP_TYPE_EMAIL', contact, ...parameters },
    } as any);
    return smtp.waitForMailTo(contact);
  }

  async function layout(html: string, width: number, texts: Record<string, string>): Promise<Layout> {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    try {
      await page.setContent(html, { waitUntil: 'load' });
      return await page.evaluate((texts) => {
        const boxes: Layout['boxes'] = {};
        for (const [name, wanted] of Object.entries(texts)) {
          const found = document.evaluate(`//*[normalize-space(text())=${JSON.stringify(wanted)}]`, document.body, null, XPathResult.FIRST_ORDERED_NODE_TYPE).singleNodeValue;
          if (!found) {
            boxes[name] = null;
            continue;
          }
          const range = document.createRange();
          range.selectNodeContents(found);
          const text = range.getBoundingClientRect();
          const element = (found as Element).getBoundingClientRect();
          boxes[name] = {
            left: Math.min(text.left, element.left),
            right: Math.max(text.right, element.right),
            top: Math.min(text.top, element.top),
            bottom: Math.max(text.bottom, element.bottom),
          };
        }
        const logo = document.querySelector('img');
        if (logo) {
          const box = logo.getBoundingClientRect();
          boxes.logo = { left: box.left, right: box.right, top: box.top, bottom: box.bottom };
        }
        return { innerWidth: window.innerWidth, scrollWidth: document.documentElement.scrollWidth, boxes };
      }, texts);
    } finally {
      await page.close();
    }
  }

  const cases: Array<{ name: string; parameters: (imageBase: string) => Record<string, any> }> = [
    { name: 'plain', parameters: () => ({ appName: 'Acme Wallet' }) },
    {
      name: 'with a logo, a long unbroken app name and a magic link',
      parameters: (base) => ({
        appName: 'SupercalifragilisticexpialidociousInternationalCooperativeTreasuryWallet',
        emailCustomization: { logoUrl: `${base}/logo.png`, magicLinkTemplate: 'https://wallet.example/login/a/rather/long/path?code=%s' },
      }),
    },
  ];

  for (const { name, parameters: of } of cases) {
    test(`${name}: no sideways scrolling at ${VIEWPORTS.join(' and ')} px; name, code, logo, button and footer within the width`, async () => {
      const parameters = of(imageBase);
      const mail = await deliveredEmail(parameters);
      const grouped = GROUPED.exec(mail.text ?? '')?.[1];
      assert.ok(grouped, mail.text);
      const html = displayedHtml(mail);
      const texts: Record<string, string> = {
        name: parameters.appName,
        code: grouped,
        footer: 'If you did not ask for this code, you can ignore this email.',
      };
      if (parameters.emailCustomization) texts.button = `Sign in to ${parameters.appName}`;

      for (const width of VIEWPORTS) {
        const seen = await layout(html, width, texts);
        const where = `at ${width} px: ${JSON.stringify(seen)}`;
        assert.equal(seen.innerWidth, width);
        assert.ok(seen.scrollWidth <= seen.innerWidth, `the page scrolls sideways ${where}`);
        for (const part of [...Object.keys(texts), ...(parameters.emailCustomization ? ['logo'] : [])]) {
          const box = seen.boxes[part];
          assert.ok(box, `the ${part} is on the page ${where}`);
          assert.ok(box.right - box.left > 0 && box.bottom - box.top > 0, `the ${part} has a size ${where}`);
          assert.ok(box.left >= 0 && box.right <= seen.innerWidth, `the ${part} lies within the width ${where}`);
        }
        // The code stays on one line: its box is one line high (line-height 40 px).
        assert.ok(seen.boxes.code!.bottom - seen.boxes.code!.top <= 40, `the code is on one line ${where}`);
      }
    });
  }
});
