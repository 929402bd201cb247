// The web app of test/authProxyBrowser.test.ts, bundled by esbuild and run in Chromium on its own
// origin: @turnkey/core's TurnkeyClient, unmodified, with its apiBaseUrl and authProxyUrl both
// pointing at Signet and an authProxyConfigId, as a page with no backend of its own makes it.
import { OtpType, TurnkeyClient } from '@turnkey/core';

export interface ProxySetup {
  signetUrl: string;
  organizationId: string;
  authProxyConfigId: string;
  rpId: string;
}

/** What a call of the client gave, or the error it threw (core wraps errors in TurnkeyError, with a cause). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string; cause?: string };

let client: TurnkeyClient | undefined;

function core(): TurnkeyClient {
  if (!client) throw new Error('call init first');
  return client;
}

async function outcome<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    const e = error as Error & { cause?: unknown };
    const cause = e.cause instanceof Error ? e.cause.message : e.cause === undefined ? undefined : JSON.stringify(e.cause);
    return { ok: false, error: `${e.name}: ${e.message}`, ...(cause ? { cause } : {}) };
  }
}

const app = {
  async init(setup: ProxySetup) {
    client = new TurnkeyClient({
      apiBaseUrl: setup.signetUrl,
      authProxyUrl: setup.signetUrl,
      authProxyConfigId: setup.authProxyConfigId,
      organizationId: setup.organizationId,
      passkeyConfig: { rpId: setup.rpId },
    });
    await client.init();
  },
  /** core's signUpWithPasskey: a passkey made, the sign-up through the proxy, then stamp_login by a key of the sign-up. */
  signUpWithPasskey() {
    return outcome(() => core().signUpWithPasskey({ passkeyDisplayName: 'proxy passkey' }));
  },
  /** core's loginWithPasskey: stamp_login stamped by the passkey. */
  loginWithPasskey() {
    return outcome(() => core().loginWithPasskey({}));
  },
  /** core's fetchWallets: the session's wallets and accounts. */
  fetchWallets() {
    return outcome(async () => (await core().fetchWallets()).map((wallet) => ({ walletName: wallet.walletName, addresses: wallet.accounts.map((a) => a.address) })));
  },
  /** core's initOtp: through the proxy, from the page's origin. */
  initOtp(contact: string) {
    return outcome(() => core().initOtp({ otpType: OtpType.Email, contact }));
  },
  async logout() {
    return outcome(() => core().logout());
  },
};

export type ProxyApp = typeof app;

(globalThis as { proxyApp?: ProxyApp }).proxyApp = app;
