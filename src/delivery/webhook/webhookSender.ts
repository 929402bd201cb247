// The webhook channel: posts an event to its endpoint, signed per the Standard Webhooks specification
// (headers webhook-id — the outbox message's id, the same at every retry —, webhook-timestamp and
// webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> under the endpoint's secret). The
// endpoint is read at each attempt: one deleted or made inactive since is not posted to. Its URL is
// checked again then (https; the host resolved, every address public unicast, the connection pinned
// to the checked one) unless SIGNET_WEBHOOK_ALLOW_INSECURE. A 2xx answer is a delivery; any other
// answer, a timeout or a network error is retried with the outbox's backoff, as the specification
// asks of senders; a refused address, a deleted endpoint or a secret that cannot be opened fails for
// good. Redirects are not followed, and at most a few KiB of the answer are read. Logs name the
// endpoint and the answer's status, never the secret or the body.
import http from 'node:http';
import https from 'node:https';
import type { Database } from '../../store/db.ts';
import type { ClaimedMessage } from '../../store/outbox.ts';
import { findWebhookEndpointForDelivery } from '../../store/webhookEndpoints.ts';
import { openWebhookSecret, webhookSignature } from '../../wire/webhookSecret.ts';
import type { ChannelSender } from '../channelSender.ts';
import { DeliveryError } from '../deliveryError.ts';
import { HostRefused, resolvePublicAddress, type PinnedAddress } from '../publicHost.ts';

/** What a webhook message's payload holds (store's queueEndpointEvents, or the admin API's test event). */
export interface WebhookPayload {
  endpointId: string;
  /** The endpoint's URL when the message was queued: what operators see. */
  to: string;
  /** The event, posted as its JSON text. */
  event: object;
}

export interface WebhookSenderOptions {
  db: Database;
  /** The deployment secret the endpoints' secrets are sealed under. */
  secret: Buffer;
  /** SIGNET_WEBHOOK_ALLOW_INSECURE: http:// and any address. */
  allowInsecure: boolean;
  /** How long an attempt may take, connection to answer (default 10 s). */
  timeoutMs?: number;
}

/** Posts at once at most: a slow receiver holds a slot until its timeout. */
const CONCURRENCY = 16;
const DEFAULT_TIMEOUT_MS = 10_000;
/** The answer's body is read up to this, then the connection is closed. */
const MAX_ANSWER_BYTES = 4096;

export function createWebhookSender(options: WebhookSenderOptions): ChannelSender {
  const { db, secret, allowInsecure } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    concurrency: CONCURRENCY,
    logFields: (claimed) => ({ endpointId: (claimed.payload as WebhookPayload).endpointId }),
    async prepare(claimed: ClaimedMessage) {
      const { endpointId, event } = claimed.payload as WebhookPayload;
      const endpoint = await findWebhookEndpointForDelivery(db, endpointId);
      if (!endpoint) throw new DeliveryError(`webhook endpoint ${endpointId} was deleted`, { permanent: true });
      if (!endpoint.isActive) throw new DeliveryError(`webhook endpoint ${endpointId} is inactive`, { permanent: true });
      let key: Buffer;
      try {
        key = openWebhookSecret(secret, endpointId, endpoint.sealedSecret);
      } catch {
        throw new DeliveryError("the endpoint's secret cannot be opened: SIGNET_OTP_SECRET differs from the one it was created with", { permanent: true });
      }
      const url = new URL(endpoint.url);
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowInsecure)) {
        throw new DeliveryError(`${url.protocol} webhook URLs are not posted to; use https`, { permanent: true });
      }
      let pinned: PinnedAddress;
      try {
        pinned = await resolvePublicAddress(url.hostname, allowInsecure, 'webhooks are posted to');
      } catch (error) {
        if (error instanceof HostRefused) throw new DeliveryError(error.message, { permanent: !error.temporary });
        throw error;
      }
      const body = JSON.stringify(event);
      return async () => {
        // The timestamp of this attempt: a receiver's tolerance window counts from the send, not the queueing.
        const timestamp = Math.floor(Date.now() / 1000);
        const status = await post(url, pinned, timeoutMs, body, {
          'content-type': 'application/json',
          'user-agent': 'Signet webhooks',
          'webhook-id': claimed.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignature(key, claimed.id, timestamp, body),
        });
        return { messageId: `HTTP ${status}` };
      };
    },
    // Network errors and timeouts may pass; post() says what is permanent with a DeliveryError.
    isPermanent: () => false,
    close() {},
  };
}

/** Posts `body`; resolves with the 2xx status, rejects with a DeliveryError (retried) for any other answer. */
function post(url: URL, pinned: PinnedAddress, timeoutMs: number, body: string, headers: Record<string, string>): Promise<number> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        // Connect to the address that was checked, whatever DNS says a moment later (rebinding).
        lookup: (_hostname, _options, callback) => callback(null, pinned.address, pinned.family),
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: timeoutMs,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        const settle = () => {
          if (status >= 200 && status < 300) resolve(status);
          else reject(new DeliveryError(status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`, { permanent: false, retryAfterMs: retryAfter(response) }));
        };
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Enough: the answer's content is not used, only its status.
          if (read > MAX_ANSWER_BYTES) {
            response.destroy();
            settle();
          }
        });
        response.on('end', settle);
        response.on('error', () => settle());
      },
    );
    const deadline = setTimeout(() => request.destroy(new DeliveryError(`no complete answer within ${timeoutMs} ms`, { permanent: false })), timeoutMs);
    request.on('timeout', () => request.destroy(new DeliveryError(`no answer within ${timeoutMs} ms`, { permanent: false })));
    request.on('error', (error) => reject(error instanceof DeliveryError ? error : new DeliveryError(`post failed: ${error.message}`, { permanent: false })));
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}

/** A Retry-After in seconds (429, 503), bounded to an hour; undefined when absent or a date. */
function retryAfter(response: http.IncomingMessage): number | undefined {
  const value = Number(response.headers['retry-after']);
  return Number.isFinite(value) && value > 0 ? Math.min(value, 3600) * 1000 : undefined;
}
