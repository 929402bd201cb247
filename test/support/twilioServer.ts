// A loopback server that speaks the part of Twilio's REST API Signet uses: POST
// /2010-04-01/Accounts/{AccountSid}/Messages.json, Basic auth, form-encoded, JSON answers in
// Twilio's shapes. It records each request and answers the way Twilio does, including the magic
// test numbers of Twilio's test credentials (+15005550001 invalid, +15005550009 not a mobile…).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const TWILIO_ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
export const TWILIO_AUTH_TOKEN = 'loopback-auth-token-0123';
export const TWILIO_FROM = '+15005550006';

export interface TwilioRequest {
  accountSid: string;
  /** The Basic credentials as sent, "sid:token". */
  credentials: string;
  contentType: string | undefined;
  form: Record<string, string>;
}

/** How the next requests are answered instead of the normal way. */
export type TwilioScript =
  | { status: number; code?: number; message?: string; retryAfter?: string }
  | { hang: true }
  | { raw: string; status: number };

export interface TwilioServer {
  /** http://127.0.0.1:<port>, for SIGNET_TWILIO_BASE_URL. */
  baseUrl: string;
  /** Every request received, in order (also the scripted and refused ones). */
  requests: TwilioRequest[];
  /** The messages Twilio accepted, with the sid it answered. */
  accepted: Array<{ sid: string; to: string; body: string; from?: string; messagingServiceSid?: string }>;
  /** Answers the next requests as scripted, one entry each, then normally again. */
  script(...answers: TwilioScript[]): void;
  /** Resolves once `count` messages were accepted; rejects after `timeoutMs`. */
  waitForAccepted(count: number, timeoutMs?: number): Promise<TwilioServer['accepted']>;
  close(): Promise<void>;
}

// Twilio's test credentials answer these numbers with these errors.
const MAGIC_NUMBERS: Record<string, { code: number; message: (to: string) => string }> = {
  '+15005550001': { code: 21211, message: (to) => `The 'To' number ${to} is not a valid phone number.` },
  '+15005550002': { code: 21612, message: (to) => `The 'To' phone number: ${to}, is not currently reachable using the 'From' phone number via SMS.` },
  '+15005550003': { code: 21408, message: (to) => `Permission to send an SMS has not been enabled for the region indicated by the 'To' number: ${to}.` },
  '+15005550004': { code: 21610, message: () => 'Attempt to send to unsubscribed recipient' },
  '+15005550009': { code: 21614, message: (to) => `'To' number ${to} is not a valid mobile number` },
};

function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

export async function startTwilioServer(): Promise<TwilioServer> {
  const requests: TwilioRequest[] = [];
  const accepted: TwilioServer['accepted'] = [];
  const scripted: TwilioScript[] = [];
  const hanging = new Set<http.ServerResponse>();
  const waiters: Array<() => void> = [];

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(request.url ?? '');
      if (request.method !== 'POST' || !match) {
        return send(404, twilioError(404, 20404, 'The requested resource was not found'));
      }
      const accountSid = decodeURIComponent(match[1]!);
      const auth = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
      const credentials = auth ? Buffer.from(auth[1]!, 'base64').toString('utf8') : '';
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      requests.push({ accountSid, credentials, contentType: request.headers['content-type'], form });

      const next = scripted.shift();
      if (next && 'hang' in next) {
        hanging.add(response);
        return;
      }
      if (next && 'raw' in next) {
        response.writeHead(next.status, { 'content-type': 'application/json' });
        return response.end(next.raw);
      }
      if (next) {
        return send(next.status, twilioError(next.status, next.code ?? 0, next.message ?? 'scripted failure'),
          next.retryAfter ? { 'retry-after': next.retryAfter } : {});
      }

      if (credentials !== `${TWILIO_ACCOUNT_SID}:${TWILIO_AUTH_TOKEN}` || accountSid !== TWILIO_ACCOUNT_SID) {
        return send(401, twilioError(401, 20003, 'Authenticate'));
      }
      const { To: to, From: from, MessagingServiceSid: messagingServiceSid, Body: body } = form;
      if (!to) return send(400, twilioError(400, 21604, "A 'To' phone number is required."));
      if (!from && !messagingServiceSid) return send(400, twilioError(400, 21603, "A 'From' phone number is required."));
      if (!body) return send(400, twilioError(400, 21602, 'Message body is required.'));
      if (body.length > 1600) return send(400, twilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit.'));
      const magic = MAGIC_NUMBERS[to];
      if (magic) return send(400, twilioError(400, magic.code, magic.message(to)));
      if (!/^\+[1-9]\d{6,14}$/.test(to)) return send(400, twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`));

      const sid = `SM${randomBytes(16).toString('hex')}`;
      accepted.push({ sid, to, body, ...(from ? { from } : {}), ...(messagingServiceSid ? { messagingServiceSid } : {}) });
      for (const wake of waiters.splice(0)) wake();
      send(201, {
        account_sid: accountSid,
        api_version: '2010-04-01',
        body,
        date_created: new Date().toUTCString(),
        direction: 'outbound-api',
        error_code: null,
        error_message: null,
        from: from ?? null,
        messaging_service_sid: messagingServiceSid ?? null,
        num_segments: '1',
        sid,
        status: messagingServiceSid ? 'accepted' : 'queued',
        to,
        uri: `/2010-04-01/Accounts/${accountSid}/Messages/${sid}.json`,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    accepted,
    script: (...answers) => void scripted.push(...answers),
    async waitForAccepted(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (accepted.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} accepted SMS, got ${accepted.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return accepted;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
