// A summary as it is kept and shown, pure: within MAX_SUMMARY_BYTES it is kept as made; past it its
// lists and text are cut until it fits, in order, saying so, never a number's digits; its lines are
// one line each whatever a decoded string holds (line breaks, bidirectional overrides); the approval
// email lays them out above the intent, escaped in its HTML, and leaves out a stored value that is
// not a summary.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { composeApprovalEmail } from '../src/delivery/email/composeApprovalEmail.ts';
import { boundedSummary, MAX_SUMMARY_BYTES, summaryLines, type EthereumSummary } from '../src/readable/index.ts';
import type { ApprovalEmailPayload } from '../src/store/approvalRequests.ts';

const ADDRESS = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const WEI = (2n ** 255n).toString();

const ethereum = (args: Array<{ name: string; value: string }>, text = 'On Ethereum (chain 1) call f(…) on USDC'): EthereumSummary => ({
  kind: 'ethereum_transaction',
  chain: { id: 1, name: 'Ethereum' },
  to: { address: ADDRESS, label: 'USDC' },
  function: { name: 'f', signature: '0x12345678', arguments: args },
  value: { amount: '57896044618658097711785492504343953926634992332820282019728.792003956564819968', unit: 'ETH', wei: WEI },
  text,
});

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

test('a summary within the bound is kept as made; past it, lists and text are cut in order until it fits, and it says so', () => {
  const small = ethereum([{ name: 'to', value: ADDRESS }]);
  assert.equal(boundedSummary(small), small);

  const args = Array.from({ length: 500 }, (_, i) => ({ name: `a${i}`, value: `${i}:${'x'.repeat(190)}` }));
  const large = ethereum(args, `On Ethereum (chain 1) call f(${args.map((a) => `${a.name}=${a.value}`).join(', ')}) on USDC`);
  assert.ok(bytes(large) > MAX_SUMMARY_BYTES);
  const kept = boundedSummary(large) as EthereumSummary;
  assert.ok(bytes(kept) <= MAX_SUMMARY_BYTES, `${bytes(kept)} bytes`);
  assert.equal(kept.truncated, true);
  assert.ok(kept.function!.arguments.length > 0 && kept.function!.arguments.length < 500);
  assert.deepEqual(kept.function!.arguments, args.slice(0, kept.function!.arguments.length), 'the first arguments, whole and in order');
  assert.ok([...kept.text].length <= 1000 && kept.text.endsWith('…'));
  assert.equal(kept.value.wei, WEI, "a number's digits are never cut");
  assert.deepEqual(kept.to, small.to);
  assert.equal(summaryLines(kept).at(-1)?.label, 'Note');
});

test("each line is one line of plain text, whatever a decoded string holds", () => {
  const lines = summaryLines(ethereum([{ name: 'memo', value: 'pay\nRecipient: 0xevil\r\u202Eevil\u2066 \u0000end' }]));
  const memo = lines.find((line) => line.label === 'Argument memo')!;
  assert.equal(memo.value, 'pay Recipient: 0xevil evil end');
  assert.deepEqual(
    lines.map((line) => line.label),
    ['Chain', 'Recipient', 'Function', 'Argument memo', 'Value'],
  );
  assert.equal(lines.find((line) => line.label === 'Recipient')!.value, `USDC (${ADDRESS})`);
  assert.equal(lines.find((line) => line.label === 'Value')!.value.endsWith(`(${WEI} wei)`), true);
});

test('the approval email shows the summary above the intent, escaped in its HTML; a stored value that is not a summary is left out', () => {
  const message: ApprovalEmailPayload = {
    to: 'bob@example.com',
    userName: 'Bob',
    organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b',
    organizationName: 'Acme',
    activityId: '2d4f6a8c-1b3e-4d5f-9a7c-6e8b0d2f4a1c',
    activityType: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
    summary: 'sign transaction: signWith "0x…"',
    readable: { ...ethereum([{ name: 'note', value: '<img src=x onerror=alert(1)>' }]), to: { address: ADDRESS, label: 'A & <B>' } },
    submitter: { userId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f', userName: 'Alice' },
    createdAt: '2026-12-07T23:00:00.000Z',
    link: 'https://signet.example.com/console/activities/2d4f6a8c-1b3e-4d5f-9a7c-6e8b0d2f4a1c',
  };
  const email = composeApprovalEmail({ outboxId: '0d4f1c9e-2a3b-4c5d-8e7f-9a0b1c2d3e4f', message, defaultFrom: 'approvals@signet.test' });
  assert.ok(email.text.indexOf('What it signs:') < email.text.indexOf('Summary:'));
  assert.match(email.text, new RegExp(`^Recipient: +A & <B> \\(${ADDRESS}\\)$`, 'm'));
  assert.ok(email.html.includes(`<td>A &amp; &lt;B&gt; (${ADDRESS})</td>`), email.html);
  assert.ok(email.html.includes('<td>&lt;img src=x onerror=alert(1)&gt;</td>'), email.html);
  assert.ok(!email.html.includes('<img') && !email.html.includes('<B>'));

  for (const readable of [{ kind: 'unknown', text: 'x' }, { text: 'no kind' }, 'a string' as unknown as object]) {
    const plain = composeApprovalEmail({ outboxId: '0d4f1c9e-2a3b-4c5d-8e7f-9a0b1c2d3e4f', message: { ...message, readable }, defaultFrom: 'approvals@signet.test' });
    assert.ok(!plain.text.includes('What it signs') && plain.text.includes('Summary:'));
  }
});
