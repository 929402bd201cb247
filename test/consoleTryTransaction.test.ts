// The console's "Try a transaction" page in a real headless Chromium, signed in as the root user: an
// unsigned ERC-20 transfer built by viem, pasted with the account that would sign it and the user who
// would submit it, is decided by the organization's live policies (an ALLOW whose condition reads the
// ABI-decoded amount): under the cap it would be signed at once, with each policy's outcome; over it,
// to a recipient no policy names, refused; to the recipient a two-approver policy names, it would
// wait, naming who could still approve, and with that approval it would be signed. Nothing is
// stored, sent or signed. The page fits 375 and 1280 px without scrolling sideways, and every control
// is reached by Tab and named.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { encodeFunctionData, parseAbi, serializeTransaction } from 'viem';
import { chromiumMissing, launchChromium, pageWithPasskey } from './support/chromium.ts';
import { checkKeyboardAndLabels, checkNoHorizontalScroll, openConsole, screenshot, signInWithApiKey, startConsoleServer, type ConsoleServer } from './support/console.ts';
import { testDatabases } from './support/databases.ts';
import { postStamped } from './support/http.ts';
import type { Credentials } from './support/server.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const TOKEN = '0x00000000000000000000000000000000000000c0';
const RECIPIENT = '0x1111111111111111111111111111111111111111';
const STRANGER = '0x2222222222222222222222222222222222222222';
const ERC20 = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);
/** Above 2^53: the cap compares exactly. */
const CAP = 10n ** 21n;

/** An unsigned EIP-1559 transfer of `amount` base units of the token, as viem serializes it. */
const transfer = (amount: bigint, to: `0x${string}` = RECIPIENT) =>
  serializeTransaction({
    chainId: 1,
    type: 'eip1559',
    to: TOKEN,
    nonce: 0,
    gas: 60_000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
    data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [to, amount] }),
  });

for (const tdb of testDatabases) {
  describe(`the console's transaction trial (${tdb.name}, headless Chromium)`, { skip: chromiumMissing }, () => {
    let signet: ConsoleServer;
    let browser: Browser;
    let page: Page;
    let org: Credentials;
    let alice: Credentials;
    let bob: Credentials;
    let account: string;
    const pageErrors: string[] = [];
    let sequence = 0;

    async function submit(path: string, type: string, parameters: object) {
      const body = JSON.stringify({ type, timestampMs: String(Date.now() + ++sequence), organizationId: org.organizationId, parameters });
      const answer = await postStamped(signet.baseUrl, `/public/v1/submit/${path}`, body, org);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      return answer.json.activity;
    }

    async function user(userName: string): Promise<Credentials> {
      const { userId } = await signet.admin('POST', `/organizations/${org.organizationId}/users`, { userName });
      const key = await signet.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
      return { organizationId: org.organizationId, userId, apiKeyId: key.apiKeyId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
    }

    const stored = async () => {
      const [row] = await signet.db.query<{ n: string | number }>('SELECT count(*) AS n FROM activities WHERE organization_id = $1', [org.organizationId]);
      return Number(row!.n);
    };

    /** Fills the form and tries the transaction; the decision's region. */
    async function tryTransaction(unsignedTransaction: string, submittedBy: string, approvedBy: string[] = []) {
      await page.getByRole('navigation').getByRole('link', { name: 'Try a transaction', exact: true }).click();
      await page.getByRole('heading', { name: 'Try a transaction', level: 1 }).waitFor();
      await page.getByLabel('Sign with').fill(account);
      await page.getByLabel('Transaction type').selectOption('TRANSACTION_TYPE_ETHEREUM');
      await page.getByLabel('Unsigned transaction').fill(unsignedTransaction);
      await page.getByLabel('Submitted by').selectOption({ label: submittedBy });
      for (const name of approvedBy) await page.getByRole('group', { name: 'Approved also by' }).getByLabel(name).check();
      await page.getByRole('button', { name: 'Try', exact: true }).click();
      const decision = page.getByRole('region', { name: 'Decision' });
      await decision.waitFor();
      return decision;
    }

    before(async () => {
      const started = await Promise.allSettled([
        startConsoleServer(tdb).then((server) => (signet = server)),
        launchChromium().then((launched) => (browser = launched)),
      ]);
      for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
      org = await signet.createOrganization('Console trial');
      alice = await user('alice');
      bob = await user('bob');
      const wallet = await submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'Treasury', accounts: [ETHEREUM] });
      [account] = wallet.result.createWalletResult.addresses;
      await submit('create_smart_contract_interface', 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
        smartContractAddress: TOKEN,
        smartContractInterface: JSON.stringify([
          { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] },
        ]),
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label: 'Test token',
        notes: '',
      });
      await submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
        policyName: 'alice moves up to the cap',
        effect: 'EFFECT_ALLOW',
        condition: `eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] <= ${CAP}`,
        consensus: `approvers.any(user, user.id == '${alice.userId}')`,
        notes: '',
      });
      await submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
        policyName: 'bob moves more with alice',
        effect: 'EFFECT_ALLOW',
        condition: `eth.tx.contract_call_args['amount'] > ${CAP} && eth.tx.contract_call_args['to'] == '${RECIPIENT}'`,
        consensus: `approvers.any(user, user.id == '${bob.userId}') && approvers.any(user, user.id == '${alice.userId}')`,
        notes: '',
      });
      page = await pageWithPasskey(browser, pageErrors, 60_000);
      await openConsole(page, signet.origin);
      await signInWithApiKey(page, org);
    });

    after(async () => {
      await browser?.close();
      await signet?.close();
    });

    test('a pasted transfer under the cap would be signed, over it refused or waiting for approvals; nothing is stored', async () => {
      const before = await stored();

      const under = await tryTransaction(transfer(CAP), 'alice');
      assert.match((await under.getByRole('status').textContent())!, /Allowed: it would be signed at once/);
      assert.match((await under.textContent())!, new RegExp(`What it does: On Ethereum \\(chain 1\\) call transfer\\(to=${RECIPIENT}, amount=${CAP}\\) on Test token`));
      const rows = await under.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((cell) => (cell.textContent ?? '').trim())));
      assert.deepEqual(rows.find((row) => row[0] === 'alice moves up to the cap')?.[1], 'allow');
      await checkNoHorizontalScroll(page);
      await checkKeyboardAndLabels(page);
      await screenshot(page, 'try-transaction');

      const over = await tryTransaction(transfer(CAP + 1n, STRANGER), 'alice');
      assert.match((await over.getByRole('status').textContent())!, /Refused: neither the root quorum nor any policy allows it/);

      const waits = await tryTransaction(transfer(CAP + 1n), 'bob');
      assert.match((await waits.getByRole('status').textContent())!, /It would wait for approvals/);
      assert.match((await waits.textContent())!, /Could still be approved by: .*alice/);

      const approved = await tryTransaction(transfer(CAP + 1n), 'bob', ['alice']);
      assert.match((await approved.getByRole('status').textContent())!, /Allowed: it would be signed at once/);

      assert.equal(await stored(), before, 'the trial stores no activity');
      assert.deepEqual(pageErrors, []);
    });
  });
}
