// A waiting signature carries what it signs in words, through the real HTTP stack, @turnkey/http's
// TurnkeyClient, a real SMTP server on loopback and a loopback webhook receiver. With a root quorum
// of two, a sign_transaction of an ERC-20 transfer to a contract whose ABI is stored under a label
// waits; the approval email to the other root user shows, above the intent, the summary's line and
// its structured lines (the chain, the recipient with its label, the function, each argument, the
// value in ETH), every value escaped in its HTML; the webhook events of its waiting and of its
// completion carry it as `activity.summary`; get_activity answers it as `summary` beside the
// activity (whose shape stays the ecosystem's) and list_activities as `summaries` by id. A Solana
// transfer's summary names the SOL amount and the recipient; an EIP-712 payload's the primary type
// and the domain, the verifying contract by its label.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import type { TurnkeyClient } from '@turnkey/http';
import type { ParsedMail } from 'mailparser';
import { encodeFunctionData, getAddress, getTypesForEIP712Domain, serializeTransaction, serializeTypedData } from 'viem';
import { testDatabases } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { proveEmail } from './support/provenEmail.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';

const PUBLIC_URL = 'https://signet.example.com';
const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
const ERC20_ABI = [
  { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] },
] as const;
const TOKEN = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const RECIPIENT = getAddress('0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7');
/** The label the ABI is stored under: markup in it must reach the email's HTML escaped. */
const LABEL = 'USD Coin <USDC> & co';
const AMOUNT = 2n ** 60n + 7n;

/** A loopback receiver of webhook posts: each body, parsed. */
async function startReceiver() {
  const events: any[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      events.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, events, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

for (const tdb of testDatabases) {
  describe(`readable approvals (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let receiver: Receiver;
    let server: TestServer;
    let organizationId: string;
    let alice: TurnkeyClient;
    let bob: TurnkeyClient;
    let bobEmail: string;
    let ethereum: string;
    let solana: string;

    before(async () => {
      smtp = await startSmtpSink();
      receiver = await startReceiver();
      server = await startTestServer(tdb, {
        SIGNET_SMTP_URL: smtp.url,
        SIGNET_EMAIL_FROM: 'approvals@signet.test',
        SIGNET_PUBLIC_URL: PUBLIC_URL,
        SIGNET_WEBHOOK_ALLOW_INSECURE: 'true',
      });
      // The organization's root makes the wallet, stores the ABI and names the endpoint, then hands
      // the root quorum to Alice and Bob, two of two.
      const root = await server.createOrganization(`Readable ${tdb.name}`);
      organizationId = root.organizationId;
      const client = server.client(root);
      const member = async (userName: string, email?: string) => {
        const { userId } = await server.admin('POST', `/organizations/${organizationId}/users`, { userName, ...(email ? { email } : {}) });
        const key = await server.admin('POST', `/organizations/${organizationId}/api-keys`, { userId });
        if (email) await proveEmail(client, smtp, organizationId, userId, email);
        return { organizationId, userId, apiKeyId: key.apiKeyId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey } satisfies Credentials;
      };
      bobEmail = `bob-${tdb.name}@example.com`;
      const [a, b] = [await member('Alice'), await member('Bob', bobEmail)];
      alice = server.client(a);
      bob = server.client(b);
      const wallet = (await client.createWallet(envelope('ACTIVITY_TYPE_CREATE_WALLET', organizationId, { walletName: 'Treasury', accounts: [ETHEREUM, SOLANA] }) as any)) as any;
      [ethereum, solana] = wallet.activity.result.createWalletResult.addresses;
      const stored = (await client.createSmartContractInterface(
        envelope('ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', organizationId, {
          smartContractAddress: TOKEN,
          smartContractInterface: JSON.stringify(ERC20_ABI),
          type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' as const,
          label: LABEL,
        }),
      )) as any;
      assert.equal(stored.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      await client.createWebhookEndpoint(envelope('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', organizationId, { url: receiver.url, name: 'Feed' }) as any);
      await server.admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 2, userIds: [a.userId, b.userId] });
    });
    after(async () => {
      await server.close();
      await smtp.close();
      await receiver.close();
    });

    /** The event posted for the activity with this status, once it arrived. */
    const eventOf = (activityId: string, status: string) =>
      until(`the ${status} event of ${activityId}`, () => receiver.events.find((event) => event.activity.id === activityId && event.activity.status === status));

    /** The approval email about this activity, once it arrived. */
    const approvalMail = (activityId: string): Promise<ParsedMail> =>
      until(`the approval email about ${activityId}`, () => smtp.messages.find((mail) => mail.subject?.startsWith('Approval needed') && (mail.text ?? '').includes(activityId)));

    test('an ERC-20 transfer that waits: the email, the webhook events and get_activity carry its summary, the label and arguments included', async () => {
      const unsignedTransaction = serializeTransaction({
        type: 'eip1559',
        chainId: 1,
        nonce: 3,
        to: TOKEN,
        value: 0n,
        gas: 60_000n,
        maxFeePerGas: 30_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [RECIPIENT, AMOUNT] }),
      });
      const { activity } = (await alice.signTransaction(
        envelope('ACTIVITY_TYPE_SIGN_TRANSACTION_V2', organizationId, { signWith: ethereum, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' }) as any,
      )) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const token = TOKEN.toLowerCase();
      const recipient = RECIPIENT.toLowerCase();
      const text = `On Ethereum (chain 1) call transfer(to=${recipient}, amount=${AMOUNT}) on ${LABEL} (${token}) with 0 ETH from ${ethereum.toLowerCase()}`;

      // The approval email: the summary above the intent, in text and HTML.
      const mail = await approvalMail(activity.id);
      assert.deepEqual(mail.to && 'value' in mail.to ? mail.to.value.map((to) => to.address) : [], [bobEmail]);
      const body = mail.text ?? '';
      const lines = [
        `What it signs:   ${text}`,
        'Chain:           Ethereum (chain 1)',
        `From:            ${ethereum.toLowerCase()}`,
        `Recipient:       ${LABEL} (${token})`,
        'Function:        transfer(to, amount), selector 0xa9059cbb',
        `Argument to:     ${recipient}`,
        `Argument amount: ${AMOUNT}`,
        'Value:           0 ETH (0 wei)',
      ];
      assert.ok(body.includes(lines.join('\n')), `the text shows the summary's lines:\n${body}`);
      assert.ok(body.indexOf('What it signs:') < body.indexOf('Summary:'), 'the summary comes before the intent');
      const html = String(mail.html);
      assert.ok(html.includes(`<tr><th align="left" valign="top">Recipient</th><td>USD Coin &lt;USDC&gt; &amp; co (${token})</td></tr>`), html);
      assert.ok(html.includes(`<th align="left" valign="top">Argument amount</th><td>${AMOUNT}</td>`), html);
      assert.ok(!html.includes('<USDC>'), 'the HTML escapes the label');

      // The webhook event of its waiting carries the stored summary.
      const waiting = await eventOf(activity.id, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const summary = waiting.activity.summary;
      assert.equal(summary.kind, 'ethereum_transaction');
      assert.equal(summary.text, text);
      assert.deepEqual(summary.to, { address: token, label: LABEL });
      assert.deepEqual(summary.function, { name: 'transfer', signature: '0xa9059cbb', arguments: [{ name: 'to', value: recipient }, { name: 'amount', value: String(AMOUNT) }] });
      assert.deepEqual(summary.value, { amount: '0', unit: 'ETH', wei: '0' });

      // get_activity: the summary beside the activity, whose fields stay the ecosystem's.
      const read = (await bob.getActivity({ organizationId, activityId: activity.id })) as any;
      assert.deepEqual(read.summary, summary);
      assert.equal(read.activity.summary, undefined, 'the activity object is not changed');
      assert.equal(read.activity.canApprove, true);
      const listed = (await bob.getActivities({ organizationId, filterByStatus: ['ACTIVITY_STATUS_CONSENSUS_NEEDED'] } as any)) as any;
      assert.ok(listed.activities.some((listedActivity: any) => listedActivity.id === activity.id));
      assert.deepEqual(listed.summaries[activity.id], summary);

      // Approved, it signs; its completion's event carries the summary still.
      const approved = (await bob.approveActivity(envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint: activity.fingerprint }))) as any;
      assert.equal(approved.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.match(approved.activity.result.signTransactionResult.signedTransaction, /^[0-9a-f]+$/);
      const completed = await eventOf(activity.id, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(completed.activity.summary, summary);
      assert.deepEqual(((await alice.getActivity({ organizationId, activityId: activity.id })) as any).summary, summary);
    });

    test("a Solana transfer's summary names the SOL amount and the recipient; an EIP-712 payload's the primary type and the domain", async () => {
      const to = Keypair.fromSeed(new Uint8Array(32).fill(9)).publicKey.toBase58();
      const transfer = new Transaction({ feePayer: new PublicKey(solana), recentBlockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N' }).add(
        SystemProgram.transfer({ fromPubkey: new PublicKey(solana), toPubkey: new PublicKey(to), lamports: 250_000_000 }),
      );
      const unsignedTransaction = transfer.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('hex');
      const { activity: sol } = (await alice.signTransaction(
        envelope('ACTIVITY_TYPE_SIGN_TRANSACTION_V2', organizationId, { signWith: solana, unsignedTransaction, type: 'TRANSACTION_TYPE_SOLANA' }) as any,
      )) as any;
      assert.equal(sol.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const solSummary = ((await bob.getActivity({ organizationId, activityId: sol.id })) as any).summary;
      assert.deepEqual(solSummary.transfers, [{ from: solana, to, sol: '0.25', lamports: '250000000' }]);
      assert.equal(solSummary.text, `Solana transaction: transfer 0.25 SOL to ${to}`);
      const solMail = (await approvalMail(sol.id)).text ?? '';
      assert.ok(solMail.includes(`SOL transfer:  0.25 SOL (250000000 lamports) to ${to} from ${solana}`), solMail);

      const domain = { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: TOKEN } as const;
      const payload = serializeTypedData({
        domain,
        types: {
          EIP712Domain: getTypesForEIP712Domain({ domain }),
          Permit: [
            { name: 'owner', type: 'address' },
            { name: 'spender', type: 'address' },
            { name: 'value', type: 'uint256' },
          ],
        },
        primaryType: 'Permit',
        message: { owner: getAddress(ethereum), spender: RECIPIENT, value: 10n ** 24n },
      } as never);
      const { activity: permit } = (await alice.signRawPayload(
        envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', organizationId, { signWith: ethereum, payload, encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' }) as any,
      )) as any;
      assert.equal(permit.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const permitSummary = ((await bob.getActivity({ organizationId, activityId: permit.id })) as any).summary;
      assert.equal(permitSummary.kind, 'eip712');
      assert.equal(permitSummary.primaryType, 'Permit');
      assert.deepEqual(permitSummary.domain, { name: 'USD Coin', version: '2', chain: { id: 1, name: 'Ethereum' }, verifyingContract: TOKEN.toLowerCase(), label: LABEL });
      assert.match(permitSummary.text, new RegExp(`^Sign EIP-712 Permit for USD Coin v2 on Ethereum at ${LABEL.replace(/[<>&]/g, '.')} \\(${TOKEN.toLowerCase()}\\): owner=`));
      const permitMail = (await approvalMail(permit.id)).text ?? '';
      for (const expected of ['Primary type:       Permit', 'Domain:             USD Coin version 2', `Verifying contract: ${LABEL} (${TOKEN.toLowerCase()})`, `Message value:      ${10n ** 24n}`]) {
        assert.ok(permitMail.includes(expected), `${expected}\n${permitMail}`);
      }
      const waitingEvent = await eventOf(permit.id, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.deepEqual(waitingEvent.activity.summary, permitSummary);

      // Rejected, the summary stays with it.
      await bob.rejectActivity(envelope('ACTIVITY_TYPE_REJECT_ACTIVITY', organizationId, { fingerprint: permit.fingerprint }));
      assert.deepEqual((await eventOf(permit.id, 'ACTIVITY_STATUS_REJECTED')).activity.summary, permitSummary);
    });

    test('an activity that signs nothing has no summary: not beside it, not in its event', async () => {
      const { activity } = (await alice.createSmartContractInterface(
        envelope('ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', organizationId, {
          smartContractAddress: RECIPIENT,
          smartContractInterface: JSON.stringify(ERC20_ABI),
          type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' as const,
          label: 'Other',
        }),
      )) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const read = (await bob.getActivity({ organizationId, activityId: activity.id })) as any;
      assert.deepEqual(Object.keys(read), ['activity']);
      assert.equal((await eventOf(activity.id, 'ACTIVITY_STATUS_CONSENSUS_NEEDED')).activity.summary, undefined);
      assert.ok(!((await approvalMail(activity.id)).text ?? '').includes('What it signs'));
    });
  });
}
