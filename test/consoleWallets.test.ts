// The console's Wallets view in a real headless Chromium, signed in with an API key of a root quorum
// member whose approval is needed: the organization's wallets with each account's address, path,
// curve and address format; the signatures waiting for approval with the account they sign with and
// their payloads (a long one shortened), linked to the activity, where the approval signs it and the
// view then lists it no more; an EIP-712 signature with what it signs in words, in the list and above
// its intent on its page, as text (markup in it stays text). Neither the mnemonic nor any account's
// private key is ever in the page.
// The view fits 375 and 1280 px without scrolling sideways, and every control is reached by Tab and named.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { getTypesForEIP712Domain, serializeTypedData } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { WALLET_MNEMONIC } from '../src/activities/handlers/wallets/createWallet.ts';
import { deploymentSecret } from '../src/admin/localSecrets.ts';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import { deriveAccountKey } from '../src/keys/derivation.ts';
import { mnemonicToSeed } from '../src/keys/mnemonic.ts';
import { chromiumMissing, launchChromium, pageWithPasskey } from './support/chromium.ts';
import { checkKeyboardAndLabels, checkNoHorizontalScroll, openConsole, screenshot, signInWithApiKey, startConsoleServer, type ConsoleServer } from './support/console.ts';
import { testDatabases } from './support/databases.ts';
import { postStamped } from './support/http.ts';
import type { Credentials } from './support/server.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;

for (const tdb of testDatabases) {
  describe(`the console's wallets (${tdb.name}, headless Chromium)`, { skip: chromiumMissing }, () => {
    let signet: ConsoleServer;
    let browser: Browser;
    let page: Page;
    let org: Credentials;
    let alice: Credentials;
    let walletId: string;
    let ethereum: string;
    let solana: string;
    const pageErrors: string[] = [];
    let sequence = 0;

    /** Submits as `who`, outside the page (what another client does); the answer's activity. */
    async function submit(who: Credentials, path: string, type: string, parameters: object) {
      const body = JSON.stringify({ type, timestampMs: String(Date.now() + ++sequence), organizationId: org.organizationId, parameters });
      const answer = await postStamped(signet.baseUrl, `/public/v1/submit/${path}`, body, who);
      assert.equal(answer.status, 200, answer.text);
      return answer.json.activity;
    }

    /** The wallet's mnemonic and its accounts' private keys, opened from the store as only a test may. */
    async function keyMaterial(): Promise<Record<string, string>> {
      const [row] = await signet.db.query<{ sealed_mnemonic: string }>('SELECT sealed_mnemonic FROM wallets WHERE id = $1', [walletId]);
      const opened = await openKeyMaterial(deploymentSecretKek(deploymentSecret(signet.config).key), { organizationId: org.organizationId, rowId: walletId, kind: WALLET_MNEMONIC }, row!.sealed_mnemonic);
      const mnemonic = opened.toString('utf8');
      opened.fill(0);
      const seed = mnemonicToSeed(mnemonic);
      return {
        mnemonic,
        'a word pair of the mnemonic': mnemonic.split(' ').slice(0, 2).join(' '),
        seed: Buffer.from(seed).toString('hex'),
        'the Ethereum private key': Buffer.from(mnemonicToAccount(mnemonic).getHdKey().privateKey!).toString('hex'),
        'the Solana private key': Buffer.from(deriveAccountKey('CURVE_ED25519', seed, SOLANA.path).privateKey).toString('hex'),
      };
    }

    async function checkLayout() {
      await checkNoHorizontalScroll(page);
      await checkKeyboardAndLabels(page);
      assert.deepEqual(pageErrors, []);
    }

    before(async () => {
      const started = await Promise.allSettled([
        startConsoleServer(tdb).then((server) => (signet = server)),
        launchChromium().then((launched) => (browser = launched)),
      ]);
      for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
      org = await signet.createOrganization('Console wallets');
      const { userId } = await signet.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'alice' });
      const key = await signet.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
      alice = { organizationId: org.organizationId, userId, apiKeyId: key.apiKeyId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
      const created = await submit(org, 'create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'Treasury', accounts: [ETHEREUM, SOLANA] });
      ({ walletId } = created.result.createWalletResult);
      [ethereum, solana] = created.result.createWalletResult.addresses;
      // Signatures by the root user now wait for alice's approval.
      const quorum = await submit(org, 'update_root_quorum', 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { threshold: 2, userIds: [org.userId, alice.userId] });
      assert.equal(quorum.status, 'ACTIVITY_STATUS_COMPLETED');
      page = await pageWithPasskey(browser, pageErrors, 60_000); // a fresh profile; its passkey is not used
      await openConsole(page, signet.origin);
      await signInWithApiKey(page, alice);
    });

    after(async () => {
      await browser?.close();
      await signet?.close();
    });

    test('the wallets with their accounts, the waiting signatures with their payloads; no key material in the page', async () => {
      const digest = `0x${'ab'.repeat(32)}`;
      const one = await submit(org, 'sign_raw_payload', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', { signWith: ethereum, payload: digest, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' });
      assert.equal(one.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const long = `Signed by Treasury: ${'x'.repeat(600)}`;
      const many = await submit(org, 'sign_raw_payloads', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', {
        signWith: solana,
        payloads: ['gm', long],
        encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
        hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE',
      });
      assert.equal(many.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');

      await page.getByRole('navigation').getByRole('link', { name: 'Wallets', exact: true }).click();
      await page.getByRole('heading', { name: 'Wallets', level: 1 }).waitFor();

      const accounts = page.getByRole('region', { name: 'Accounts of Treasury' });
      await accounts.waitFor();
      const rows = await accounts.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((cell) => (cell.textContent ?? '').trim())));
      assert.deepEqual(
        rows.sort((a, b) => a[0]!.localeCompare(b[0]!)),
        [
          [ethereum, ETHEREUM.path, 'SECP256K1', 'ETHEREUM'],
          [solana, SOLANA.path, 'ED25519', 'SOLANA'],
        ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
      );
      assert.ok((await page.getByRole('heading', { name: 'Treasury', level: 3 }).count()) === 1);

      const waiting = page.getByRole('region', { name: 'Signatures waiting for approval, newest first' });
      await waiting.waitFor();
      const single = waiting.getByRole('row').filter({ hasText: one.id });
      assert.match((await single.textContent())!, new RegExp(`Sign a payload.*${ethereum}.*${digest}.*PAYLOAD_ENCODING_HEXADECIMAL · HASH_FUNCTION_NO_OP.*Needed`));
      const several = waiting.getByRole('row').filter({ hasText: many.id });
      const severalText = (await several.textContent())!;
      assert.match(severalText, new RegExp(`Sign 2 payloads.*${solana}.*gm.*Signed by Treasury: x+….*\\(${long.length} characters`));
      assert.ok(!severalText.includes(long), 'the long payload is shortened in the list');
      assert.equal(await several.getByRole('link', { name: 'Sign 2 payloads' }).getAttribute('href'), `/console/activities/${many.id}`);

      const html = await page.content();
      for (const [what, value] of Object.entries(await keyMaterial())) assert.ok(!html.toLowerCase().includes(value.toLowerCase()), `${what} is in the page`);
      await checkLayout();
      await screenshot(page, 'wallets');
    });

    test('a waiting signature opens on its activity, where the approval signs it; the view then lists it no more', async () => {
      await page.getByRole('link', { name: 'Sign a payload' }).click();
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('region', { name: 'Votes, each signature checked in this page' }).getByText('alice').waitFor();
      const result = page.getByLabel('Result');
      await result.waitFor();
      assert.match((await result.textContent())!, /"signRawPayloadResult"[\s\S]*"r": "[0-9a-f]{64}"/);

      await page.getByRole('navigation').getByRole('link', { name: 'Wallets', exact: true }).click();
      const waiting = page.getByRole('region', { name: 'Signatures waiting for approval, newest first' });
      await waiting.getByRole('row').filter({ hasText: 'Sign 2 payloads' }).waitFor();
      assert.equal(await waiting.getByRole('link', { name: 'Sign a payload' }).count(), 0, 'the signed payload waits no more');
      const html = await page.content();
      for (const [what, value] of Object.entries(await keyMaterial())) assert.ok(!html.toLowerCase().includes(value.toLowerCase()), `${what} is in the page`);
      assert.deepEqual(pageErrors, []);
    });

    test('an EIP-712 signature shows what it signs in words: its line in the list, its lines above the intent on its page, as text', async () => {
      const domain = { name: 'Mail <b>bold</b>', version: '1', chainId: 1, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' } as const;
      const payload = serializeTypedData({
        domain,
        types: { EIP712Domain: getTypesForEIP712Domain({ domain }), Mail: [{ name: 'contents', type: 'string' }] },
        primaryType: 'Mail',
        message: { contents: 'Hello, Bob!' },
      } as never);
      const typed = await submit(org, 'sign_raw_payload', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', { signWith: ethereum, payload, encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' });
      assert.equal(typed.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const line = `Sign EIP-712 Mail for Mail <b>bold</b> v1 on Ethereum at ${domain.verifyingContract.toLowerCase()}: contents=Hello, Bob!`;

      // The Wallets view is open: away and back, it lists again.
      await page.getByRole('navigation').getByRole('link', { name: 'Activities', exact: true }).click();
      await page.getByRole('heading', { name: 'Activities', level: 1 }).waitFor();
      await page.getByRole('navigation').getByRole('link', { name: 'Wallets', exact: true }).click();
      const waiting = page.getByRole('region', { name: 'Signatures waiting for approval, newest first' });
      const row = waiting.getByRole('row').filter({ hasText: typed.id });
      await row.waitFor();
      assert.ok((await row.textContent())!.includes(line), 'the list shows the summary line');

      await row.getByRole('link', { name: 'Sign a payload' }).click();
      const summary = page.getByRole('region', { name: 'What it signs' });
      await summary.waitFor();
      const text = (await summary.textContent())!;
      for (const expected of [line, 'Primary typeMail', 'DomainMail <b>bold</b> version 1', 'ChainEthereum (chain 1)', 'Message contentsHello, Bob!']) {
        assert.ok(text.includes(expected), `${expected} in ${text}`);
      }
      assert.equal(await summary.locator('b').count(), 0, 'markup in what it signs stays text');
      const order = await page.evaluate(() => {
        const headings = Array.from(document.querySelectorAll('h2')).map((h) => h.textContent);
        return [headings.indexOf('What it signs'), headings.indexOf('Intent')];
      });
      assert.ok(order[0]! >= 0 && order[0]! < order[1]!, `the summary comes before the intent: ${order}`);
      await checkLayout();
    });
  });
}
