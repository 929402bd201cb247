// Builds an approval email at delivery, from what its outbox row holds: to a user who may vote on a
// waiting activity, the organization, the activity's type and one-line summary, who submitted it and
// when, and the link to read and vote on it; for an activity that signs, first what it signs in words
// (its readable summary: the one line, then the chain, the recipient with its label, the function
// and its arguments, the value, … as src/readable lays them out). Plain text and a simple HTML part,
// every value escaped; a Message-ID derived from the row, so each attempt carries the same.
import { escapeHtml } from '../../otp/messages.ts';
import { isReadableSummary, oneLine, summaryLines } from '../../readable/index.ts';
import type { ApprovalEmailPayload } from '../../store/approvalRequests.ts';
import { messageIdFrom } from './composeOtpEmail.ts';
import type { OutgoingEmail } from './transport.ts';

/** The From name of approval emails (the address is SIGNET_EMAIL_FROM). */
export const APPROVAL_SENDER_NAME = 'Signet';

export function composeApprovalEmail(input: { outboxId: string; message: ApprovalEmailPayload; defaultFrom: string }): OutgoingEmail {
  const { message } = input;
  const submitter = `${message.submitter.userName} (${message.submitter.userId})`;
  const organization = `${message.organizationName} (${message.organizationId})`;
  const facts: Array<[string, string]> = [
    ['Organization', organization],
    ['Activity', message.activityType],
    ['Summary', message.summary],
    ['Submitted by', submitter],
    ['Submitted at', message.createdAt],
    ['Activity ID', message.activityId],
  ];
  // A stored summary that is not one (written by another version) is left out, never guessed at.
  const signs: Array<[string, string]> = isReadableSummary(message.readable)
    ? [['What it signs', oneLine(message.readable.text)], ...summaryLines(message.readable).map((line): [string, string] => [line.label, line.value])]
    : [];
  const intro = `${submitter} submitted an activity in ${message.organizationName} that waits for approvals. You may approve or reject it.`;
  const outro = `You receive this email once per activity, as a user who may vote on it.`;
  const e = escapeHtml;
  const aligned = (rows: Array<[string, string]>) => {
    const width = Math.max(...rows.map(([label]) => label.length)) + 2;
    return rows.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`);
  };
  const table = (rows: Array<[string, string]>) => [
    '<table cellpadding="4" style="border-collapse: collapse;">',
    ...rows.map(([label, value]) => `<tr><th align="left" valign="top">${e(label)}</th><td>${e(value)}</td></tr>`),
    '</table>',
  ];
  const text = [
    `Hello ${message.userName},`,
    '',
    intro,
    '',
    ...(signs.length > 0 ? [...aligned(signs), ''] : []),
    ...aligned(facts),
    '',
    'Read it, then approve or reject it:',
    message.link,
    '',
    outro,
    '',
  ].join('\n');
  const html = [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; color: #222;">',
    `<p>Hello ${e(message.userName)},</p>`,
    `<p>${e(intro)}</p>`,
    ...(signs.length > 0 ? table(signs) : []),
    ...table(facts),
    `<p><a href="${e(message.link)}">Read it, then approve or reject it</a><br>${e(message.link)}</p>`,
    `<p style="color: #666; font-size: small;">${e(outro)}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return {
    messageId: messageIdFrom(`approval-${input.outboxId}`, input.defaultFrom),
    from: { name: APPROVAL_SENDER_NAME, address: input.defaultFrom },
    to: message.to,
    subject: `Approval needed: ${message.activityType} in ${message.organizationName}`,
    text,
    html,
  };
}
