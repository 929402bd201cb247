// A passkey session: at sign-in with a passkey the page makes a P-256 key pair (the private half
// non-extractable, kept in IndexedDB with the session like an API key) and asks Signet, by one
// passkey assertion, to make its public half the user's session key (stamp_login). When that
// activity completes, requests are stamped with the session key until it expires, then the passkey
// is asked once for a new one. When Signet does not allow it (an organization's policies decide
// whether a passkey may start a session; stamp_login never waits for approvals), each request is
// stamped with the passkey and the reason is kept, for the page to say once.
import { ApiError, send, type ActivityParametersOfType } from '../api.ts';
import { apiKeyStamper, type ApiKeyCredential } from './apiKey.ts';
import { passkeyStamper } from './passkey.ts';
import { toHex, type Stamper } from './stamper.ts';

/** How long a session key is asked for (stamp_login's expirationSeconds). */
export const SESSION_SECONDS = 3600;
/** A session key this close to its end is not used any more: a request on its way must not expire. */
const EXPIRY_MARGIN_MS = 60_000;

export interface SessionKey extends ApiKeyCredential {
  /** When Signet ends it (ms since the epoch), as asked at login. */
  expiresAt: number;
}

export interface PasskeyCredential {
  kind: 'passkey';
  /** The session key stamp_login made, while Signet allows one. */
  sessionKey?: SessionKey;
  /** Why each request asks for the passkey, when Signet refused a session key. */
  perRequestReason?: string;
  /** Whether the page has said that reason already. */
  reasonShown?: boolean;
}

/** Compressed SEC1 hex of an ECDSA P-256 public key. */
async function compressedHex(publicKey: CryptoKey): Promise<string> {
  const point = new Uint8Array(await crypto.subtle.exportKey('raw', publicKey));
  const prefix = (point[64]! & 1) === 0 ? 0x02 : 0x03;
  return toHex(Uint8Array.of(prefix, ...point.subarray(1, 33)));
}

/**
 * One passkey assertion: stamp_login with a new session key. Resolves with the session key when
 * the activity completed, or the reason it did not; a credential Signet refuses (401) rejects, as
 * would any other request stamped by it.
 */
export async function passkeyLogin(organizationId: string): Promise<PasskeyCredential> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  const publicKey = await compressedHex(pair.publicKey);
  const expiresAt = Date.now() + SESSION_SECONDS * 1000;
  const body = {
    type: 'ACTIVITY_TYPE_STAMP_LOGIN',
    timestampMs: String(Date.now()),
    organizationId,
    parameters: { publicKey, expirationSeconds: String(SESSION_SECONDS), invalidateExisting: false } satisfies ActivityParametersOfType['ACTIVITY_TYPE_STAMP_LOGIN'],
  };
  try {
    // Sent directly: a renewal happens inside the stamping of a queued passkey request.
    const { activity } = await send<{ activity: { status: string } }>(passkeyStamper(), '/public/v1/submit/stamp_login', body);
    if (activity.status === 'ACTIVITY_STATUS_COMPLETED') return { kind: 'passkey', sessionKey: { publicKey, privateKey: pair.privateKey, expiresAt } };
    return { kind: 'passkey', perRequestReason: `the login activity is ${activity.status}` };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 401) throw error;
    return { kind: 'passkey', perRequestReason: error.message };
  }
}

/**
 * Stamps with the session key while it lives, else with the passkey. A session key that has expired
 * is replaced by a new login (one passkey assertion) when the organization still allows it; `save`
 * keeps the credential as it changes.
 */
export function passkeySessionStamper(organizationId: string, credential: PasskeyCredential, save: (credential: PasskeyCredential) => void): Stamper {
  const passkey = passkeyStamper();
  let current = credential;
  const live = () => current.sessionKey !== undefined && current.sessionKey.expiresAt - EXPIRY_MARGIN_MS > Date.now();
  return {
    // Passkey requests go one at a time (their counters must arrive in order); session-key ones need not.
    get exclusive() {
      return !live();
    },
    async stamp(body) {
      if (!live() && current.sessionKey !== undefined) {
        try {
          current = { ...(await passkeyLogin(organizationId)), reasonShown: current.reasonShown };
        } catch (error) {
          current = { kind: 'passkey', perRequestReason: (error as Error).message };
        }
        save(current);
      }
      return live() ? apiKeyStamper(current.sessionKey!).stamp(body) : passkey.stamp(body);
    },
  };
}
