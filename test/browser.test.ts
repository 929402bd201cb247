// A browser app in a real headless Chromium (Debian's chromium, driven by playwright-core) with a
// virtual passkey: a page on its own origin creates a passkey with the ecosystem's browser SDK, the
// test registers that attestation as the SDK shaped it, and the page stamps with
// @turnkey/webauthn-stamper and calls Signet across origins (so the browser's preflight happens).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { bundleForPage, chromiumMissing, launchChromium, pageWithPasskey, servePage } from './support/chromium.ts';
import type { AppSetup, BrowserApp, PageAnswer } from './support/browserApp.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

/** Runs one of the app's functions in the page. */
function inPage<K extends keyof BrowserApp>(page: Page, name: K, ...args: Parameters<BrowserApp[K]>): Promise<Awaited<ReturnType<BrowserApp[K]>>> {
  return page.evaluate(
    ([name, args]) => ((globalThis as any).signetApp[name] as (...a: unknown[]) => Promise<any>)(...args),
    [name, args] as const,
  );
}

describe('a browser app calls Signet from its own origin (headless Chromium, virtual passkey)', { skip: chromiumMissing }, () => {
  let signet: TestServer;
  let app: Awaited<ReturnType<typeof servePage>>;
  let browser: Browser;
  let page: Page;
  let org: Credentials;
  let setup: AppSetup;
  let appOrigin: string;
  const pageErrors: string[] = [];

  before(async () => {
    // Bundling, Signet's start and Chromium's launch take a few seconds each: they overlap.
    const bundle = bundleForPage('browserApp.ts');
    bundle.catch(() => {}); // awaited below
    app = await servePage(bundle, 'A browser app');
    // localhost is a secure context, as WebAuthn needs; Signet is at 127.0.0.1, another origin.
    appOrigin = `http://localhost:${app.port}`;
    // All settle before a failure is thrown, so after() closes whatever did start.
    const started = await Promise.allSettled([
      startTestServer(testDatabases[0]!, {
        SIGNET_OUTBOX_WORKER: 'false',
        SIGNET_CORS_ORIGINS: appOrigin,
        SIGNET_WEBAUTHN_RP_ID: 'localhost',
        SIGNET_WEBAUTHN_ORIGINS: appOrigin,
      }).then((server) => (signet = server)),
      launchChromium().then((launched) => (browser = launched)),
      bundle,
    ]);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    assert.match(signet.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    org = await signet.createOrganization('Browser app');
    setup = { signetUrl: signet.baseUrl, organizationId: org.organizationId, rpId: 'localhost' };

    page = await pageWithPasskey(browser, pageErrors, 60_000); // a fresh profile of its own
    await page.goto(`${appOrigin}/`);
    await page.waitForFunction(() => 'signetApp' in globalThis);
  });

  after(async () => {
    await browser?.close();
    await app?.close();
    await signet?.close();
  });

  test("registers the SDK's passkey, then stamps and calls Signet directly; the vote is the passkey's", async () => {
    // createUserPasskey, as sdk-browser's passkey client runs it, for a challenge the server gave.
    const challenge = randomBytes(32).toString('base64url');
    const { encodedChallenge, attestation } = await inPage(page, 'createUserPasskey', setup, challenge);
    assert.equal(encodedChallenge, challenge);
    assert.deepEqual(Object.keys(attestation).sort(), ['attestationObject', 'clientDataJson', 'credentialId', 'transports']);
    assert.deepEqual(attestation.transports, ['AUTHENTICATOR_TRANSPORT_INTERNAL']);

    // The app's backend registers it through the admin API in the shape the SDK gave.
    const registered = await signet.admin('POST', `/organizations/${org.organizationId}/users/${org.userId}/authenticators`, {
      name: 'Chromium passkey',
      challenge: encodedChallenge,
      attestation,
    });
    assert.equal(registered.credentialId, attestation.credentialId);
    const [row] = await signet.db.query<{ transports: string[] }>('SELECT transports FROM authenticators WHERE credential_id = $1', [
      attestation.credentialId,
    ]);
    assert.deepEqual(row!.transports, ['internal']);

    // The SDK's passkey client submits an activity from the page: preflight, then the stamped POST.
    const created = await inPage(page, 'createSmartContractInterface', setup, 'from the browser');
    assert.equal(created.status, 'ACTIVITY_STATUS_COMPLETED');
    const { activity } = (await signet.client(org).getActivity({ organizationId: org.organizationId, activityId: created.activityId })) as any;
    assert.equal(activity.type, 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE');
    assert.equal(activity.votes.length, 1);
    assert.equal(activity.votes[0].scheme, 'SIGNATURE_SCHEME_WEBAUTHN');
    assert.equal(activity.votes[0].userId, org.userId);

    // WebauthnStamper and fetch, by hand: the page reads the answer and the exposed request id.
    const listed: PageAnswer = await inPage(page, 'listActivities', setup);
    assert.equal(listed.error, undefined);
    assert.equal(listed.status, 200);
    assert.match(listed.requestId ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      listed.json.activities.map((a: { id: string }) => a.id),
      [created.activityId],
    );

    // A refusal is readable by the page too (the answer names the origin): no route here.
    const refused = await inPage(page, 'post', `${signet.baseUrl}/public/v1/submit/no_such_activity`);
    assert.equal(refused.status, 404);
    assert.equal(refused.json.code, 5);
    assert.deepEqual(pageErrors, []);
  });

  test('a page on an origin that is not allowed is blocked by the browser', async () => {
    // The same app reached as 127.0.0.1 is another origin, not in SIGNET_CORS_ORIGINS.
    const other = await page.context().newPage();
    try {
      await other.goto(`http://127.0.0.1:${app.port}/`);
      await other.waitForFunction(() => 'signetApp' in globalThis);
      const blocked = await inPage(other, 'post', `${signet.baseUrl}/public/v1/query/list_activities`);
      assert.equal(blocked.status, undefined);
      assert.match(blocked.error ?? '', /^TypeError: Failed to fetch/);
    } finally {
      await other.close();
    }
    // The app's own origin, from the same browser, still gets through.
    const allowed = await inPage(page, 'post', `${signet.baseUrl}/public/v1/query/list_activities`);
    assert.equal(allowed.status, 401);
  });
});
