// The web app of test/browser.test.ts, bundled by esbuild and run in Chromium on its own origin: it
// makes a passkey with the ecosystem's browser SDK and calls Signet directly, as a browser app does.
import { Turnkey } from '@turnkey/sdk-browser';
import { WebauthnStamper } from '@turnkey/webauthn-stamper';

export interface AppSetup {
  signetUrl: string;
  organizationId: string;
  rpId: string;
}

/** What a page's fetch gave: the status, what the page can read of the answer, or the error it threw. */
export interface PageAnswer {
  status?: number;
  json?: any;
  /** null unless Signet exposes the header to the page (Access-Control-Expose-Headers). */
  requestId?: string | null;
  error?: string;
}

function sdk(setup: AppSetup) {
  return new Turnkey({ apiBaseUrl: setup.signetUrl, defaultOrganizationId: setup.organizationId });
}

async function answerOf(call: () => Promise<Response>): Promise<PageAnswer> {
  try {
    const response = await call();
    return { status: response.status, requestId: response.headers.get('X-Request-Id'), json: await response.json() };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const app = {
  /** sdk-browser's passkey client: navigator.credentials.create() for `challenge` (base64url). */
  async createUserPasskey(setup: AppSetup, challenge: string) {
    const passkeys = sdk(setup).passkeyClient({ rpId: setup.rpId });
    const bytes = Uint8Array.from(atob(challenge.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    return passkeys.createUserPasskey({
      publicKey: { rp: { id: setup.rpId, name: 'Signet browser test' }, user: { name: 'alice@example.com', displayName: 'Alice' }, challenge: bytes },
    });
  },

  /** An activity through the SDK's passkey client: stamped by its WebauthnStamper, sent with its headers. */
  async createSmartContractInterface(setup: AppSetup, label: string) {
    const passkeys = sdk(setup).passkeyClient({ rpId: setup.rpId });
    const result = await passkeys.createSmartContractInterface({
      smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      smartContractInterface: JSON.stringify([{ type: 'event', name: 'Ping', inputs: [] }]),
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label,
    });
    return { activityId: result.activity.id, status: result.activity.status, smartContractInterfaceId: result.smartContractInterfaceId };
  },

  /** A query stamped by @turnkey/webauthn-stamper itself and sent with fetch. */
  async listActivities(setup: AppSetup): Promise<PageAnswer> {
    const body = JSON.stringify({ organizationId: setup.organizationId });
    const stamp = await new WebauthnStamper({ rpId: setup.rpId }).stamp(body);
    return answerOf(() =>
      fetch(`${setup.signetUrl}/public/v1/query/list_activities`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
        body,
      }),
    );
  },

  /** A stamped-looking call from wherever the page is (a preflighted request: JSON and X-Stamp). */
  async post(url: string): Promise<PageAnswer> {
    return answerOf(() => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Stamp': '{}' }, body: '{}' }));
  },
};

export type BrowserApp = typeof app;

(globalThis as { signetApp?: BrowserApp }).signetApp = app;
