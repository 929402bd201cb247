// /docs as a person sees it, in headless Chromium: the reference renders every path of the OpenAPI
// document, an operation shows its answer's schema down to the result fields, the introduction
// explains how a stamp is built, GET / leads there, and no request leaves Signet's origin (the page
// works offline: script, style sheet and fonts all come from Signet).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from './support/chromium.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type TestServer } from './support/server.ts';

describe('the API reference in a browser (headless Chromium)', { skip: chromiumMissing }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let paths: string[];
  const requested: string[] = [];
  const pageErrors: string[] = [];
  const refusedByPolicy: string[] = [];

  before(async () => {
    server = await startTestServer(testDatabases[0]!, { SIGNET_OUTBOX_WORKER: 'false' });
    paths = Object.keys(((await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as { paths: object }).paths);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // The page's Content-Security-Policy blocks any load from elsewhere; Chromium logs each it blocks.
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    // Started at /, so the redirect is the one a person follows.
    await page.goto(`${server.baseUrl}/`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('GET / leads to /docs', () => {
    assert.equal(page.url(), `${server.baseUrl}/docs`);
    assert.equal(requested[0], `${server.baseUrl}/`);
  });

  test('every path of the document is on the page, grouped under its tag', async () => {
    const shown = await page.$$eval('.opblock-summary-path', (elements) => elements.map((element) => element.getAttribute('data-path')));
    assert.deepEqual([...new Set(shown)].sort(), [...paths].sort());
    const tags = await page.$$eval('.opblock-tag', (elements) => elements.map((element) => element.getAttribute('data-tag')));
    assert.deepEqual(tags, ['activities', 'queries', 'admin', 'auth proxy', 'service']);
  });

  test('the introduction says how a stamp is built and how to point the clients at Signet', async () => {
    const intro = await page.textContent('.information-container');
    assert.match(intro ?? '', /How a stamp is built/);
    assert.match(intro ?? '', /SIGNATURE_SCHEME_TK_API_P256/);
    assert.match(intro ?? '', /X-Stamp-WebAuthn/);
    assert.match(intro ?? '', /change the base URL/);
  });

  test("an operation shows its body's bounds and its answer's schema down to the result fields", async () => {
    const operation = '#operations-activities-init_otp_auth';
    await page.click(`${operation} .opblock-summary`);
    const body = await page.waitForSelector(`${operation} .opblock-section-request-body`);
    const bodyText = (await body.textContent()) ?? '';
    assert.match(bodyText, /otpLength/);
    assert.match(bodyText, /\[6, 9\]/); // the bounds as the page shows them
    assert.match(bodyText, /Length of the OTP/);

    const ok = await page.waitForSelector(`${operation} tr.response[data-code="200"]`);
    const shown = (await ok.textContent()) ?? '';
    assert.match(shown, /ACTIVITY_TYPE_INIT_OTP_AUTH_V3 answer/);
    assert.match(shown, /initOtpAuthResultV2/); // the handler's result key, under activity.result
    // Expanding it shows the result's fields.
    const head = page
      .locator(`${operation} tr.response[data-code="200"] .json-schema-2020-12-head`)
      .filter({ has: page.locator('.json-schema-2020-12__title', { hasText: /^initOtpAuthResultV2$/ }) });
    await head.locator('.json-schema-2020-12-expand-deep-button').click();
    await page.waitForFunction((selector) => document.querySelector(selector)?.textContent?.includes('Identifier of the issued OTP'), `${operation} tr.response[data-code="200"]`);
    assert.match((await ok.textContent()) ?? '', /otpId/);

    const refused = await page.waitForSelector(`${operation} tr.response[data-code="401"]`);
    assert.match((await refused.textContent()) ?? '', /Error/);
  });

  test('no request left Signet\'s origin, and the page raised no error', () => {
    assert.ok(requested.length >= 5, requested.join('\n'));
    const outside = requested.filter((url) => !url.startsWith(`${server.baseUrl}/`) && !url.startsWith('data:'));
    assert.deepEqual(outside, []);
    for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/openapi.json']) {
      assert.ok(requested.includes(`${server.baseUrl}${asset}`), asset);
    }
    assert.deepEqual(pageErrors, []);
    // Nothing even tried (a load the policy blocked would be logged), and the policy broke nothing.
    assert.deepEqual(refusedByPolicy, []);
  });
});
