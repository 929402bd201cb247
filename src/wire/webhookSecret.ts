// A webhook endpoint's signing secret: 32 random bytes, shown to the client once as `whsec_<base64>`
// (the Standard Webhooks form), kept sealed under the deployment secret (sealed.ts, the endpoint's
// id as associated data), and the signature of a delivery made with it: `v1,<base64 HMAC-SHA256 of
// "id.timestamp.body">`, which the Standard Webhooks libraries verify.
import { createHmac, randomBytes } from 'node:crypto';
import { seal, unseal } from './sealed.ts';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const LABEL = 'webhook-secret';

/** A new secret's bytes, its text as the client is shown it once, and its sealed form to store. */
export function newWebhookSecret(deploymentSecret: Buffer, endpointId: string): { text: string; sealed: string } {
  const bytes = randomBytes(SECRET_BYTES);
  return { text: WEBHOOK_SECRET_PREFIX + bytes.toString('base64'), sealed: seal(deploymentSecret, LABEL, endpointId, bytes) };
}

/** The secret's bytes; throws when it was sealed under another deployment secret or for another endpoint. */
export function openWebhookSecret(deploymentSecret: Buffer, endpointId: string, sealed: string): Buffer {
  return unseal(deploymentSecret, LABEL, endpointId, sealed);
}

/** The `webhook-signature` header's value for one delivery attempt. */
export function webhookSignature(secret: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
