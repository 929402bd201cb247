// Twilio Programmable Messaging over its REST API (POST /2010-04-01/Accounts/{sid}/Messages.json,
// Basic auth, form-encoded). Twilio's answers become a message id, a temporary failure (5xx, 429,
// no answer, the account's own set-up) or a permanent one (the recipient or the text refused).
import type { SmsSettings } from '../../config.ts';
import { DeliveryError } from '../deliveryError.ts';
import type { SmsProvider } from './smsProvider.ts';

export type TwilioSettings = Extract<SmsSettings, { provider: 'twilio' }>;

export interface TwilioOptions {
  /** How long one request may take, answer included (default 10 s). */
  timeoutMs?: number;
}

/**
 * Twilio error codes that refuse this message for good: the number is invalid, unreachable, not
 * a mobile, opted out, in a region the account may not send to, unverified on a trial account,
 * or the text is empty or too long. Any other refusal is the deployment's (credentials, sender,
 * account) and is retried, so messages survive while an operator fixes the settings.
 */
const PERMANENT_ERROR_CODES = new Set([
  21211, // invalid 'To' number
  21214, // 'To' number cannot be reached
  21217, // phone number does not appear to be valid
  21401, // invalid phone number
  21407, // this phone number type does not support SMS
  21408, // permission to send to this region is not enabled
  21602, // message body is required
  21608, // unverified 'To' number (trial account)
  21610, // recipient unsubscribed (STOP)
  21612, // 'To' number is not reachable by SMS
  21614, // 'To' number is not a mobile number
  21617, // body exceeds the 1600 character limit
  21635, // 'To' number is a landline
]);

const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_RETRY_AFTER_MS = 3600_000;

export function createTwilioProvider(settings: TwilioSettings, options: TwilioOptions = {}): SmsProvider {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const endpoint = `${settings.baseUrl}/2010-04-01/Accounts/${settings.accountSid}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
  const sender: [string, string] = settings.messagingServiceSid
    ? ['MessagingServiceSid', settings.messagingServiceSid]
    : ['From', settings.from!];

  return {
    name: 'twilio',
    async send({ to, text }) {
      let status: number;
      let answer: TwilioAnswer;
      let retryAfter: string | null;
      try {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            authorization,
            accept: 'application/json',
            'content-type': 'application/x-www-form-urlencoded',
            'user-agent': 'Signet',
          },
          body: new URLSearchParams([['To', to], sender, ['Body', text]]),
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        retryAfter = response.headers.get('retry-after');
        answer = await readAnswer(response);
      } catch (error) {
        // No answer, or not a whole one: Twilio may or may not have taken the message. Retrying
        // risks a second SMS, never sending risks none; a person waiting for a code wants one.
        const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describe(error);
        throw new DeliveryError(`Twilio did not answer: ${reason}`, { permanent: false });
      }

      if (status >= 200 && status < 300) {
        // Accepted: even without a readable sid the message is on its way, so never send it again.
        return { messageId: typeof answer.sid === 'string' && answer.sid !== '' ? answer.sid : 'twilio:unknown-sid' };
      }
      const code = typeof answer.code === 'number' ? answer.code : undefined;
      const message = `Twilio answered HTTP ${status}${code !== undefined ? ` (error ${code})` : ''}` +
        (typeof answer.message === 'string' ? `: ${answer.message}` : '');
      const permanent = status < 500 && status !== 429 && code !== undefined && PERMANENT_ERROR_CODES.has(code);
      const retryAfterMs = parseRetryAfter(retryAfter);
      throw new DeliveryError(message, { permanent, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
    },
  };
}

/** The fields of Twilio's JSON answer that Signet reads: a message's sid, or an error's code and message. */
interface TwilioAnswer {
  sid?: unknown;
  code?: unknown;
  message?: unknown;
}

/**
 * The answer's JSON, read to at most MAX_ANSWER_BYTES; {} when it is too large, cut off or not
 * JSON. Never throws: once the status is known, a broken body must not turn "accepted" into a retry.
 */
async function readAnswer(response: Response): Promise<TwilioAnswer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const reader = response.body?.getReader();
    for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
      size += read.value.byteLength;
      if (size > MAX_ANSWER_BYTES) {
        await reader!.cancel();
        return {};
      }
      chunks.push(read.value);
    }
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as TwilioAnswer) : {};
  } catch {
    return {};
  }
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
