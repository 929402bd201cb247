// The auth proxy from a page (headless Chromium with a virtual authenticator): @turnkey/core,
// unmodified, with authProxyUrl and authProxyConfigId pointing at Signet, calls the proxy from its own
// origin (the configuration's CORS) and the API for the rest: signUpWithPasskey makes the
// sub-organization with the configuration's default wallet and logs in; loginWithPasskey and
// fetchWallets then read that wallet; initOtp sends the code.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Turnkey } from '@turnkey/sdk-server';
import type { Browser, Page } from 'playwright-core';
import { bundleForPage, chromiumMissing, launchChromium, pageWithPasskey, servePage } from './support/chromium.ts';
import { testDatabases } from './support/databases.ts';
import type { Outcome, ProxyApp, ProxySetup } from './support/proxyApp.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

let bundled: Promise<string> | undefined;
const bundle = (): Promise<string> => (bundled ??= bundleForPage('proxyApp.ts'));

function inPage<K extends keyof ProxyApp>(page: Page, name: K, ...args: Parameters<ProxyApp[K]>): Promise<Awaited<ReturnType<ProxyApp[K]>>> {
  return page.evaluate(([name, args]) => ((globalThis as any).proxyApp[name] as (...a: unknown[]) => Promise<any>)(...args), [name, args] as const);
}

function succeeded<T>(outcome: Outcome<T>, what: string): T {
  if (!outcome.ok) assert.fail(`${what} failed in the page: ${JSON.stringify(outcome)}`);
  return outcome.value;
}

for (const tdb of testDatabases) {
  describe(`the auth proxy from a page (${tdb.name}, headless Chromium)`, { skip: chromiumMissing }, () => {
    let signet: TestServer;
    let app: Awaited<ReturnType<typeof servePage>>;
    let browser: Browser;
    let page: Page;
    let org: Credentials;
    let smtp: SmtpSink;
    const pageErrors: string[] = [];

    before(async () => {
      const built = bundle();
      built.catch(() => {});
      app = await servePage(bundle(), 'An auth proxy app');
      const appOrigin = `http://localhost:${app.port}`;
      smtp = await startSmtpSink();
      const started = await Promise.allSettled([
        startTestServer(tdb, {
          SIGNET_SMTP_URL: smtp.url,
          SIGNET_EMAIL_FROM: 'otp@signet.test',
          // The public API's CORS, for the page's stamp_login and reads; the proxy's is the configuration's.
          SIGNET_CORS_ORIGINS: appOrigin,
          SIGNET_WEBAUTHN_RP_ID: 'localhost',
          SIGNET_WEBAUTHN_ORIGINS: appOrigin,
        }).then((server) => (signet = server)),
        launchChromium().then((launched) => (browser = launched)),
        built,
      ]);
      for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
      org = await signet.createOrganization('Proxy app');
      const config = await signet.admin<{ configId: string; policy: Record<string, string> }>('POST', `/organizations/${org.organizationId}/auth-proxy-configs`, {
        allowedOrigins: [appOrigin],
        methods: 'otp,passkey',
        walletName: 'Default',
        walletAccounts: ['ADDRESS_FORMAT_ETHEREUM'],
      });
      const root = new Turnkey({ apiBaseUrl: signet.baseUrl, apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey, defaultOrganizationId: org.organizationId }).apiClient();
      await root.createPolicy({ ...(config.policy as any), effect: 'EFFECT_ALLOW', notes: 'the auth proxy' });
      const setup: ProxySetup = { signetUrl: signet.baseUrl, organizationId: org.organizationId, authProxyConfigId: config.configId, rpId: 'localhost' };
      page = await pageWithPasskey(browser, pageErrors, 60_000);
      await page.goto(`${appOrigin}/`);
      await page.waitForFunction(() => 'proxyApp' in globalThis);
      await inPage(page, 'init', setup);
    });

    after(async () => {
      await browser?.close();
      await app?.close();
      await signet?.close();
      await smtp?.close();
    });

    test('signUpWithPasskey makes a sub-organization with the default wallet; loginWithPasskey and fetchWallets read it', async () => {
      const signedUp = succeeded(await inPage(page, 'signUpWithPasskey'), 'signUpWithPasskey');
      const claims = JSON.parse(Buffer.from(signedUp.sessionToken.split('.')[1]!, 'base64url').toString('utf8'));
      const [subOrg] = await signet.db.query<{ parent: string }>('SELECT parent_id::text AS parent FROM organizations WHERE id = $1', [claims.organization_id]);
      assert.equal(subOrg?.parent, org.organizationId);
      succeeded(await inPage(page, 'logout'), 'logout');
      succeeded(await inPage(page, 'loginWithPasskey'), 'loginWithPasskey');
      const wallets = succeeded(await inPage(page, 'fetchWallets'), 'fetchWallets');
      assert.equal(wallets.length, 1);
      assert.equal(wallets[0]!.walletName, 'Default');
      assert.match(wallets[0]!.addresses[0]!, /^0x[0-9a-fA-F]{40}$/);
    });

    test("initOtp from the page's origin sends the code", async () => {
      const email = 'page@example.com';
      const sent = succeeded(await inPage(page, 'initOtp', email), 'initOtp');
      assert.match(sent.otpId, /^[0-9a-f-]{36}$/);
      const mail = await smtp.waitForMailTo(email);
      assert.match(mail.text ?? '', /\b[0-9]{6}\b/);
      assert.deepEqual(pageErrors, []);
    });
  });
}
