// The web app of test/coreLogin.test.ts, bundled by esbuild and run in Chromium on its own origin:
// @turnkey/core's TurnkeyClient, unmodified, with its apiBaseUrl pointing at Signet. The page only
// notes which URL each request went to and which stamp header it carried, so the test can tell a
// passkey's stamp from a session key's.
import { TurnkeyClient } from '@turnkey/core';

export interface CoreSetup {
  signetUrl: string;
  organizationId: string;
  rpId: string;
}

/** One request the page sent: where, and the names of its X-Stamp* headers. */
export interface SentRequest {
  url: string;
  stampHeaders: string[];
}

/** What a call of the client gave, or the error it threw (core wraps errors in TurnkeyError, with a cause). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string; code?: string; cause?: string };

const sent: SentRequest[] = [];
const pageFetch = globalThis.fetch.bind(globalThis);
globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const stampHeaders: string[] = [];
  new Headers(init?.headers).forEach((_value, name) => {
    if (name.startsWith('x-stamp')) stampHeaders.push(name);
  });
  sent.push({ url, stampHeaders });
  return pageFetch(input, init);
};

let client: TurnkeyClient | undefined;

/** The public keys of the session key pairs core keeps in IndexedDB (its stamper's database, read directly). */
function keyPairsInIndexedDb(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open('TurnkeyStamperDB');
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const db = opening.result;
      const reading = db.transaction('KeyStore', 'readonly').objectStore('KeyStore').getAllKeys();
      reading.onerror = () => reject(reading.error);
      reading.onsuccess = () => {
        db.close();
        resolve((reading.result as string[]).sort());
      };
    };
  });
}

function core(): TurnkeyClient {
  if (!client) throw new Error('call init first');
  return client;
}

async function outcome<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    const e = error as Error & { code?: string; cause?: unknown };
    const cause = e.cause instanceof Error ? e.cause.message : e.cause === undefined ? undefined : JSON.stringify(e.cause);
    return { ok: false, error: `${e.name}: ${e.message}`, ...(e.code ? { code: e.code } : {}), ...(cause ? { cause } : {}) };
  }
}

const app = {
  /** A TurnkeyClient as an app makes one: Signet's URL, the organization, a passkey config; no auth proxy. */
  async init(setup: CoreSetup) {
    client = new TurnkeyClient({ apiBaseUrl: setup.signetUrl, organizationId: setup.organizationId, passkeyConfig: { rpId: setup.rpId } });
    await client.init();
  },

  /** core's createPasskey: navigator.credentials.create() for a challenge core makes. */
  createPasskey(name: string) {
    return core().createPasskey({ name });
  },

  /** core's loginWithPasskey: stamp_login stamped by the passkey (X-Stamp-WebAuthn) for a new session key. */
  loginWithPasskey(expirationSeconds: string) {
    return outcome(() => core().loginWithPasskey({ expirationSeconds }));
  },

  /** core's refreshSession: stamp_login stamped by the session key for a new one. */
  refreshSession(expirationSeconds?: string) {
    return outcome(() => core().refreshSession(expirationSeconds ? { expirationSeconds } : undefined));
  },

  /** core's fetchUser: get_user for the session's user, stamped by the session key. */
  fetchUser() {
    return outcome(() => core().fetchUser());
  },

  /** whoami through core's own HTTP client (core does not call it on the login path itself). */
  whoami() {
    return outcome(() => core().httpClient.getWhoami({}));
  },

  /** The session core stores (localStorage) and the key pairs it holds (IndexedDB). */
  async stored() {
    const session = await core().getSession();
    return { session, keyPairPublicKeys: await keyPairsInIndexedDb() };
  },

  /** core's signUpWithPasskey and initOtp: the hosted auth proxy's calls, expected to fail here. */
  signUpWithPasskey() {
    return outcome(() => core().signUpWithPasskey({ passkeyDisplayName: 'sign-up passkey' }));
  },
  initOtp(contact: string) {
    return outcome(() => core().initOtp({ otpType: 'OTP_TYPE_EMAIL' as any, contact }));
  },

  /** core's verifyOtp: encrypts the code to the bundle, then calls the hosted auth proxy's verify. */
  verifyOtp(otpId: string, otpCode: string, otpEncryptionTargetBundle: string) {
    return outcome(() => core().verifyOtp({ otpId, otpCode, otpEncryptionTargetBundle }));
  },

  /** core's createApiKeyPair: a P-256 key pair in IndexedDB, whose public key an OTP's verification token is bound to. */
  createApiKeyPair() {
    return core().createApiKeyPair();
  },

  /** core's loginWithOtp: stamp_login stamped X-Stamp-Attested by the token's key, which becomes the session key. */
  loginWithOtp(verificationToken: string) {
    return outcome(() => core().loginWithOtp({ verificationToken }));
  },

  /** core's loginWithOauth: stamp_login stamped X-Stamp-Attested with scheme STAMP_ATTESTED_SCHEME_P256_OIDC, for a new key pair. */
  async loginWithOauth(oidcToken: string) {
    const publicKey = await core().createApiKeyPair();
    return outcome(() => core().loginWithOauth({ oidcToken, publicKey }));
  },

  /** core's logout: forgets the session and deletes its key pair, locally. */
  logout() {
    return outcome(() => core().logout());
  },

  /** The requests sent since the last call, and forgets them. */
  takeSent(): SentRequest[] {
    return sent.splice(0, sent.length);
  },
};

export type CoreApp = typeof app;

(globalThis as { coreApp?: CoreApp }).coreApp = app;
