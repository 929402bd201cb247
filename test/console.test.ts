// The console (GET /console) as a person uses it, in a real headless Chromium: the page and its
// assets as served (CSP, history routing, no request off the origin, page weight), sign-in with an
// API key, adding a passkey, and the approval of a waiting activity with that passkey, every
// request stamped in the page; at 375 and 1280 px, by keyboard.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Browser, Page, Request } from 'playwright-core';
import { chromiumMissing, launchChromium, pageWithPasskey } from './support/chromium.ts';
import {
  checkKeyboardAndLabels,
  checkNoHorizontalScroll,
  checkShownOnPhone,
  openConsole,
  PHONE_WIDTH,
  screenshot,
  signInWithApiKey,
  signInWithPasskey,
  signOut,
  startConsoleServer,
  type ConsoleServer,
} from './support/console.ts';
import { testDatabases } from './support/databases.ts';
import { ROOT } from './support/processes.ts';
import type { Credentials } from './support/server.ts';
import { until } from './support/until.ts';
import { envelope } from './support/envelopes.ts';

const ASSETS = path.join(ROOT, 'dist', 'console', 'assets');
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

for (const tdb of testDatabases) {
  describe(`the console's page (${tdb.name})`, () => {
    let signet: ConsoleServer;
    before(async () => {
      signet = await startConsoleServer(tdb);
    });
    after(() => signet?.close());

    test('GET /console and every page under it answer the page with a strict CSP; its assets are cached for good; other files 404', async () => {
      for (const urlPath of ['/console', '/console/', '/console/activities', `/console/activities/${crypto.randomUUID()}`, '/console/no/such/view']) {
        const page = await fetch(`${signet.baseUrl}${urlPath}`);
        assert.equal(page.status, 200, urlPath);
        assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
        assert.equal(page.headers.get('content-security-policy'), CSP);
        assert.equal(page.headers.get('cache-control'), 'no-cache');
        const html = await page.text();
        assert.match(html, /<div id="console"><\/div>/);
        const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
        assert.equal(assets.length, 2, html);
        for (const asset of assets) {
          const file = await fetch(`${signet.baseUrl}${asset}`);
          assert.equal(file.status, 200, asset);
          assert.equal(file.headers.get('content-type'), asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
          assert.equal(file.headers.get('cache-control'), 'public, max-age=31536000, immutable');
          assert.equal(await file.text(), fs.readFileSync(path.join(ASSETS, path.basename(asset)), 'utf8'));
        }
      }
      for (const missing of ['/console/assets/console.js', '/console/assets/..%2Findex.html', '/console/assets/a/b.js', '/console/assets', '/console/assets/constructor']) {
        const answer = await fetch(`${signet.baseUrl}${missing}`);
        assert.equal(answer.status, 404, missing);
        assert.equal(((await answer.json()) as { code: number }).code, 5);
      }
    });
  });
}

test('the page weighs at most 250 KB of gzip-compressed JavaScript, in one script and one stylesheet', () => {
  const files = fs.readdirSync(ASSETS).sort();
  assert.deepEqual(
    files.map((file) => path.extname(file)).sort(),
    ['.css', '.js'],
  );
  const script = fs.readFileSync(path.join(ASSETS, files.find((file) => file.endsWith('.js'))!));
  const gzipped = gzipSync(script, { level: 9 }).length;
  assert.ok(gzipped <= 250 * 1024, `${gzipped} bytes gzip-compressed`);
});

for (const tdb of testDatabases) describe(`the console in Chromium: sign in, add a passkey, approve with it (virtual passkey; ${tdb.name})`, { skip: chromiumMissing }, () => {
  let signet: ConsoleServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const offOrigin: string[] = [];
  let a: Credentials;
  let b: { userId: string; apiPublicKey: string; apiPrivateKey: string };

  before(async () => {
    const started = await Promise.allSettled([
      startConsoleServer(tdb).then((server) => (signet = server)),
      launchChromium().then((launched) => (browser = launched)),
    ]);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    // A (an API key) and B, both root users, threshold 1 for now.
    a = await signet.createOrganization('Console Org');
    const { userId } = await signet.admin('POST', `/organizations/${a.organizationId}/users`, { userName: 'Bea' });
    const key = await signet.admin('POST', `/organizations/${a.organizationId}/api-keys`, { userId });
    b = { userId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
    const quorum = (await signet.client(a).updateRootQuorum(
      envelope('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', a.organizationId, { threshold: 1, userIds: [a.userId, b.userId] }),
    )) as any;
    assert.equal(quorum.activity.status, 'ACTIVITY_STATUS_COMPLETED');

    page = await pageWithPasskey(browser, pageErrors, 60_000);
    // Chromium reports what the Content-Security-Policy blocked on the console.
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) pageErrors.push(message.text());
    });
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== signet.origin && !request.url().startsWith('data:')) offOrigin.push(request.url());
    });
  });

  after(async () => {
    await browser?.close();
    await signet?.close();
  });

  test('the sign-in screen: no request off the origin, no horizontal scroll, every control reached and labelled', async () => {
    await openConsole(page, signet.origin);
    await page.getByRole('heading', { name: 'Sign in to the Signet console' }).waitFor();
    assert.deepEqual(offOrigin, []);
    // Commands and file names in the hints are code, not text between backticks.
    assert.ok(!(await page.locator('main').innerText()).includes('`'), 'no literal backtick on the page');
    assert.deepEqual(await page.locator('.hint code').allInnerTexts(), ['signet org create', 'credentials.json']);
    await checkNoHorizontalScroll(page);
    await checkKeyboardAndLabels(page);
    await screenshot(page, 'sign-in');
  });

  test('a wrong private key is refused in the page; a key of no user shows the server\'s message', async () => {
    await page.getByLabel('Organization ID').fill(a.organizationId);
    await page.getByLabel('API public key (hex)').fill(b.apiPublicKey);
    await page.getByLabel('API private key (hex)').fill(a.apiPrivateKey);
    await page.getByRole('button', { name: 'Sign in with the API key' }).click();
    await page.getByRole('alert').filter({ hasText: 'the private key is not the private half of this public key' }).waitFor();
    // A key pair Signet does not know: the server's 401 message is shown.
    const stranger = await page.evaluate(async () => {
      const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign'])) as CryptoKeyPair;
      const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
      const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
      const d = Uint8Array.from(atob(jwk.d!.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      return [raw, d].map((bytes) => Array.from(bytes, (x) => x.toString(16).padStart(2, '0')).join(''));
    });
    await page.getByLabel('API public key (hex)').fill(stranger[0]!);
    await page.getByLabel('API private key (hex)').fill(stranger[1]!);
    await page.getByRole('button', { name: 'Sign in with the API key' }).click();
    await page.getByRole('alert').filter({ hasText: '(401' }).waitFor();
  });

  test('B signs in with its API key (kept as a non-extractable key in IndexedDB) and adds a passkey', async () => {
    await page.getByLabel('API public key (hex)').fill('');
    await page.getByLabel('API private key (hex)').fill('');
    await signInWithApiKey(page, { organizationId: a.organizationId, apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey });
    await page.getByText('Console Org').waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/activities');
    const stored = await page.evaluate(
      () =>
        new Promise<{ extractable: boolean; type: string; text: string }>((resolve, reject) => {
          const open = indexedDB.open('signet-console');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const get = open.result.transaction('session').objectStore('session').get('current');
            get.onsuccess = () => {
              const key = get.result.credential.privateKey as CryptoKey;
              resolve({ extractable: key.extractable, type: key.type, text: JSON.stringify(get.result) });
            };
          };
        }),
    );
    assert.equal(stored.extractable, false);
    assert.equal(stored.type, 'private');
    assert.ok(!stored.text.includes(b.apiPrivateKey));
    const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    assert.ok(!storage.includes(b.apiPrivateKey));

    // The session outlives a reload: the key object comes back from IndexedDB.
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.match(await page.locator('.user').innerText(), /Bea \(API key\)/);

    await page.getByRole('link', { name: 'Add a passkey' }).click();
    await page.getByLabel('Name of the passkey').fill('Virtual passkey');
    await page.getByRole('button', { name: 'Create and register a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Completed' }).waitFor();
    const { authenticators } = (await signet.client(a).getAuthenticators({ organizationId: a.organizationId, userId: b.userId })) as any;
    assert.deepEqual(authenticators.map((x: { authenticatorName: string }) => x.authenticatorName), ['Virtual passkey']);
    assert.deepEqual(pageErrors, []);
  });

  test('A submits, it waits for 2 of 2; B signs in with the passkey, sees it first, checks A\'s vote, approves: COMPLETED', async () => {
    const quorum = (await signet.client(a).updateRootQuorum(
      envelope('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', a.organizationId, { threshold: 2, userIds: [a.userId, b.userId] }),
    )) as any;
    assert.equal(quorum.activity.status, 'ACTIVITY_STATUS_COMPLETED');
    const { activity: waiting } = (await signet.client(a).createPolicy(
      envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', a.organizationId, { policyName: 'from the console test', effect: 'EFFECT_ALLOW', notes: 'waits for Bea' }),
    )) as any;
    assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');

    await signOut(page);
    const record = await page.evaluate(
      () =>
        new Promise<unknown>((resolve) => {
          const open = indexedDB.open('signet-console');
          open.onsuccess = () => {
            const get = open.result.transaction('session').objectStore('session').get('current');
            get.onsuccess = () => resolve(get.result ?? null);
          };
        }),
    );
    assert.equal(record, null, 'signing out forgets the session');

    await signInWithPasskey(page, a.organizationId);
    await page.getByText('Bea').first().waitFor();
    assert.match(await page.locator('.user').innerText(), /Bea \(passkey\)/);
    // No policy lets Bea's passkey start a session key (2 of 2 root users would be needed, and a login never waits): the page says so once.
    await page.getByRole('status').filter({ hasText: 'Your passkey is asked for at each request' }).waitFor();
    // The first screen: the activity waiting for B's vote, above the list.
    const awaiting = page.locator('section.awaiting');
    await awaiting.getByRole('heading', { name: 'Waiting for your vote (1)' }).waitFor();
    await awaiting.getByRole('link', { name: 'Create policy' }).waitFor();
    assert.ok((await awaiting.boundingBox())!.y < 800, 'on the first screen');
    await checkNoHorizontalScroll(page);
    await checkKeyboardAndLabels(page);
    await screenshot(page, 'activities');

    await awaiting.getByRole('link', { name: 'Create policy' }).click();
    assert.equal(new URL(page.url()).pathname, `/console/activities/${waiting.id}`);
    await page.getByRole('heading', { name: 'Create policy' }).waitFor();
    const votes = page.getByRole('region', { name: 'Votes, each signature checked in this page' });
    await votes.getByText('✓ verified').waitFor();
    assert.match(await votes.innerText(), /Approved\s+API key\s+✓ verified/);
    await checkShownOnPhone(page, { "the vote's verification": votes.getByText('✓ verified'), 'the Approve button': page.getByRole('button', { name: 'Approve' }) });
    await checkNoHorizontalScroll(page);
    await checkKeyboardAndLabels(page);
    await screenshot(page, 'activity');
    await page.setViewportSize({ width: PHONE_WIDTH, height: 800 });
    await screenshot(page, 'activity-phone');
    await page.setViewportSize({ width: 1280, height: 720 });

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.facts').getByText('Completed').waitFor();
    await votes.getByRole('cell', { name: 'passkey', exact: true }).waitFor();
    // B's passkey vote carries the authenticator data and client data its passkey signed: checked in the page too.
    await until('both votes checked', async () => (await votes.innerText()).match(/Approved\s+API key\s+✓ verified[\s\S]*Bea\s+Approved\s+passkey\s+✓ verified/));
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0);

    const { activity } = (await signet.client(a).getActivity({ organizationId: a.organizationId, activityId: waiting.id })) as any;
    assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
    assert.deepEqual(
      activity.votes.map((v: { userId: string; scheme: string }) => [v.userId, v.scheme]),
      [
        [a.userId, 'SIGNATURE_SCHEME_TK_API_P256'],
        [b.userId, 'SIGNATURE_SCHEME_WEBAUTHN'],
      ],
    );
    const { policies } = (await signet.client(a).getPolicies({ organizationId: a.organizationId })) as any;
    assert.deepEqual(policies.map((p: { policyName: string }) => p.policyName), ['from the console test']);
    const { activities: logins } = (await signet.client(a).getActivities({ organizationId: a.organizationId, filterByType: ['ACTIVITY_TYPE_STAMP_LOGIN'] })) as any;
    assert.deepEqual(logins, [], 'the refused login stored nothing');
    assert.deepEqual(offOrigin, []);
    assert.deepEqual(pageErrors, []);
  });

  test('a deep link opens that activity after sign-in; a vote whose signature was altered is marked not verified; the submitter withdraws one', async () => {
    const { activities } = (await signet.client(a).getActivities({ organizationId: a.organizationId, filterByType: ['ACTIVITY_TYPE_CREATE_POLICY_V3'] })) as any;
    const target = activities[0];
    // Alter the stored signature of A's vote (a flipped byte in r): the page must see it.
    await signet.db.query("UPDATE votes SET signature = overlay(signature placing (CASE WHEN substr(signature, 9, 1) = 'a' THEN 'b' ELSE 'a' END) from 9 for 1) WHERE activity_id = $1 AND user_id = $2", [target.id, a.userId]);
    // And the signature counter in the authenticator data of B's passkey vote (a base64url character of its bytes 33 to 36).
    await signet.db.query("UPDATE votes SET authenticator_data = overlay(authenticator_data placing (CASE WHEN substr(authenticator_data, 48, 1) = 'A' THEN 'B' ELSE 'A' END) from 48 for 1) WHERE activity_id = $1 AND user_id = $2", [target.id, b.userId]);
    await signOut(page);
    await openConsole(page, signet.origin, `/console/activities/${target.id}`);
    // The credentials file as `signet org create --json` prints it, pasted whole.
    await page.getByLabel('Or paste the credentials file').fill(JSON.stringify({ baseUrl: signet.baseUrl, ...a }, null, 2));
    await page.getByRole('button', { name: 'Sign in with the API key' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.match(await page.locator('.user').innerText(), /root \(API key\)/);
    assert.equal(new URL(page.url()).pathname, `/console/activities/${target.id}`);
    const votes = page.getByRole('region', { name: 'Votes, each signature checked in this page' });
    await until('both altered votes marked', async () => (await votes.innerText()).match(
      /Approved\s+API key\s+✗ not verified[\s\S]*Bea\s+Approved\s+passkey\s+✗ not verified: the signature does not match the authenticator data/,
    ));
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0, 'a completed activity takes no vote');

    // A withdraws an activity of its own that waits (the root quorum alone decides it, 2 of 2): Reject, and it is REJECTED.
    const { activity: second } = (await signet.client(a).updateRootQuorum(
      envelope('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', a.organizationId, { threshold: 1, userIds: [a.userId] }),
    )) as any;
    assert.equal(second.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
    await page.getByRole('link', { name: 'Activities', exact: true }).click();
    await page.getByRole('heading', { name: 'Waiting for your vote (0)' }).waitFor(); // its submitter may not approve it
    await page.getByRole('link', { name: 'Update root quorum' }).first().click();
    assert.equal(new URL(page.url()).pathname, `/console/activities/${second.id}`);
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0);
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('.facts').getByText('Rejected').waitFor();
    const { activity: rejected } = (await signet.client(a).getActivity({ organizationId: a.organizationId, activityId: second.id })) as any;
    assert.equal(rejected.status, 'ACTIVITY_STATUS_REJECTED');

    // The list's filters: by status, then by type as typed (Enter applies it).
    await page.getByRole('link', { name: 'Activities', exact: true }).click();
    const list = page.getByRole('region', { name: 'Activities, newest first' });
    await list.getByRole('link').first().waitFor();
    await page.getByLabel('Status').selectOption({ label: 'Rejected' });
    await until('the rejected activity alone', async () => (await list.locator('tbody tr').allInnerTexts()).join('|').match(/^Update root quorum\n[^|]*Rejected[^|]*$/));
    await checkShownOnPhone(page, { "the activity's status": list.locator('tbody tr').first().getByText('Rejected') });
    await checkNoHorizontalScroll(page);
    await page.getByLabel('Status').selectOption({ label: 'Any status' });
    await page.getByLabel('Type').fill('create_authenticators_v2');
    await page.getByLabel('Type').press('Enter');
    await until('the passkey registration alone', async () => (await list.locator('tbody tr').allInnerTexts()).join('|').match(/^Create authenticators\n[^|]*Completed[^|]*$/));
    assert.deepEqual(pageErrors, []);
  });
  test('with a policy allowing passkey sessions: one passkey assertion signs B in for the session, and its approval is stamped by the session key', async () => {
    await signet.admin('PUT', `/organizations/${a.organizationId}/root-quorum`, { threshold: 1, userIds: [a.userId, b.userId] });
    // The policy approved above allows every activity: gone, so that only the new one allows the login.
    const { policies } = (await signet.client(a).getPolicies({ organizationId: a.organizationId })) as any;
    for (const { policyId } of policies) {
      const { activity: deleted } = (await signet.client(a).deletePolicy(envelope('ACTIVITY_TYPE_DELETE_POLICY', a.organizationId, { policyId }))) as any;
      assert.equal(deleted.status, 'ACTIVITY_STATUS_COMPLETED');
    }
    const { activity: allowed } = (await signet.client(a).createPolicy(
      envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', a.organizationId, {
        policyName: 'passkey sessions',
        effect: 'EFFECT_ALLOW',
        condition: "activity.resource == 'AUTH' && activity.action == 'CREATE'",
        consensus: "credentials.all(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')",
        notes: 'a passkey may start a console session',
      }),
    )) as any;
    assert.equal(allowed.status, 'ACTIVITY_STATUS_COMPLETED');
    await signet.admin('PUT', `/organizations/${a.organizationId}/root-quorum`, { threshold: 2, userIds: [a.userId, b.userId] });
    const { activity: waiting } = (await signet.client(a).createPolicy(
      envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', a.organizationId, { policyName: 'approved in a session', effect: 'EFFECT_ALLOW', notes: 'waits for Bea' }),
    )) as any;
    assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');

    await signOut(page);
    const passkeyStamped: string[] = [];
    const count = (request: Request) => {
      if (request.headers()['x-stamp-webauthn'] !== undefined) passkeyStamped.push(new URL(request.url()).pathname);
    };
    page.on('request', count);
    try {
      await signInWithPasskey(page, a.organizationId);
      assert.match(await page.locator('.user').innerText(), /Bea \(passkey\)/);
      await page.getByRole('heading', { name: 'Waiting for your vote (1)' }).waitFor();
      assert.equal(await page.getByRole('status').filter({ hasText: 'Your passkey is asked for at each request' }).count(), 0);
      await page.getByRole('link', { name: 'Create policy' }).first().click();
      const votes = page.getByRole('region', { name: 'Votes, each signature checked in this page' });
      await votes.getByText('✓ verified').waitFor();
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.locator('.facts').getByText('Completed').waitFor();
      // The session outlives a reload too: the session key comes back from IndexedDB.
      await page.reload();
      await page.locator('.facts').getByText('Completed').waitFor();
      await until('both votes checked', async () => (await votes.innerText()).match(/Approved\s+API key\s+✓ verified[\s\S]*Bea\s+Approved\s+API key\s+✓ verified/));
      assert.deepEqual(passkeyStamped, ['/public/v1/submit/stamp_login'], 'one passkey assertion for the whole session');

      // A session key at its end is replaced: the passkey is asked once more, for a new one.
      // The record's passkey session key (its public key); `expire` marks it as ending now.
      const sessionKeyOf = (expire: boolean) =>
        page.evaluate(
          (expireIt) =>
            new Promise<string>((resolve, reject) => {
              const open = indexedDB.open('signet-console');
              open.onerror = () => reject(open.error);
              open.onsuccess = () => {
                const transaction = open.result.transaction('session', 'readwrite');
                const store = transaction.objectStore('session');
                let publicKey = '';
                const get = store.get('current');
                get.onsuccess = () => {
                  const record = get.result;
                  publicKey = record.credential.sessionKey.publicKey;
                  if (expireIt) store.put({ ...record, credential: { ...record.credential, sessionKey: { ...record.credential.sessionKey, expiresAt: Date.now() } } }, 'current');
                };
                transaction.oncomplete = () => resolve(publicKey);
                transaction.onerror = () => reject(transaction.error);
              };
            }),
          expire,
        );
      const first = await sessionKeyOf(true);
      await page.reload();
      await page.locator('.facts').getByText('Completed').waitFor();
      await until('a new session key', async () => (await sessionKeyOf(false)) !== first);
      await votes.getByText('✓ verified').first().waitFor();
    } finally {
      page.off('request', count);
    }
    assert.deepEqual(passkeyStamped, ['/public/v1/submit/stamp_login', '/public/v1/submit/stamp_login'], 'one more passkey assertion, for the new session');

    const { activity } = (await signet.client(a).getActivity({ organizationId: a.organizationId, activityId: waiting.id })) as any;
    assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
    const approval = activity.votes[1];
    assert.equal(approval.userId, b.userId);
    assert.equal(approval.scheme, 'SIGNATURE_SCHEME_TK_API_P256');
    const { apiKeys } = (await signet.client(a).getApiKeys({ organizationId: a.organizationId, userId: b.userId })) as any;
    const sessionKey = apiKeys.find((key: { credential: { publicKey: string } }) => key.credential.publicKey === approval.publicKey);
    assert.equal(sessionKey?.credential.type, 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256');
    assert.deepEqual(offOrigin, []);
    assert.deepEqual(pageErrors, []);
  });
});
