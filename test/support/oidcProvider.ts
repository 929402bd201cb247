// A real OpenID Connect provider on loopback (the oidc-provider package) over https with its own
// certificate: discovery at /.well-known/openid-configuration, its keys at /jwks, and id tokens
// issued by the implicit flow (response_type=id_token, with the nonce of the request), driven
// without a browser: the interaction step logs in the account named by login_hint and grants the
// scopes asked for. It counts the requests of each path, and rotates its signing keys on demand (a
// new provider behind the same address, signing with the new key and still publishing the old one).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type ClientMetadata, type Configuration } from 'oidc-provider';

/** Where a client's id tokens are sent; never reached: the token is read from the redirect's fragment. */
export const REDIRECT_URI = 'https://app.example/callback';

/** The nonce a client asks its provider for: the SHA-256 (hex) of the session public key's hex, as the ecosystem's clients compute it. */
export const sessionNonce = (publicKey: string) => createHash('sha256').update(publicKey, 'utf8').digest('hex');

/** Why a test of the provider is skipped here, or false. */
export const oidcProviderSkip =
  spawnSync('openssl', ['version']).error !== undefined ? 'openssl is not installed: it makes the provider its certificate' : false;

/** A self-signed certificate for 127.0.0.1, made with openssl (as test/webhooks.test.ts makes its receiver's). */
export function loopbackCertificate(): { key: Buffer; cert: Buffer; certFile: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-oidc-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    { stdio: 'ignore' },
  );
  return { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), certFile, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A private signing key as the provider's configuration takes it, with its kid and alg. */
export async function signingKey(alg: 'ES256' | 'RS256', kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
}

export interface OidcProviderOptions {
  /** Its signing keys; the first of each kind signs. */
  keys: JWK[];
  /** Its clients (implicit flow, REDIRECT_URI); each signs its id tokens with its id_token_signed_response_alg. */
  clients: ClientMetadata[];
}

export interface LoopbackOidcProvider {
  /** https://127.0.0.1:<port>, the provider's issuer. */
  issuer: string;
  /** Trusts the provider's certificate: what the verifier fetches through. */
  agent: https.Agent;
  /** The provider's certificate file (for NODE_EXTRA_CA_CERTS). */
  certFile: string;
  /** Requests received per path (without the query). */
  requests: Map<string, number>;
  /** How many times `path` was requested. */
  count(path: string): number;
  /** An id token for `account` issued to `clientId` with `nonce`, through the implicit flow. */
  idToken(clientId: string, nonce: string, account?: string): Promise<string>;
  /** From now on: signs with `keys` (the first of each kind), publishes them, as a new provider at the same address. */
  rotate(keys: JWK[]): void;
  close(): Promise<void>;
}

export const COOKIE_KEYS = [randomBytes(32).toString('hex')];

function configuration(options: OidcProviderOptions): Configuration {
  return {
    clients: options.clients.map((client) => ({
      response_types: ['id_token'],
      grant_types: ['implicit'],
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      ...client,
    })),
    jwks: { keys: options.keys as any },
    findAccount: async (_context, accountId) => ({
      accountId,
      claims: async () => ({ sub: accountId, email: `${accountId}@example.com`, email_verified: true }),
    }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    cookies: { keys: COOKIE_KEYS },
    features: { devInteractions: { enabled: false } },
    enabledJWA: { idTokenSigningAlgValues: ['RS256', 'ES256', 'HS256'] },
    ttl: { IdToken: 3600, Interaction: 600, Grant: 600, Session: 600 },
  };
}

/** A cookie jar of one browser session: names and values only (every cookie goes back to every path). */
class Cookies {
  private readonly jar = new Map<string, string>();
  take(setCookie: string[] | undefined): void {
    for (const line of setCookie ?? []) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
  header(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** One GET without following redirects: the status and Location. */
function get(url: string, agent: https.Agent, cookies: Cookies): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { agent, headers: { cookie: cookies.header() } }, (response) => {
      cookies.take(response.headers['set-cookie']);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, location: response.headers.location, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<LoopbackOidcProvider> {
  const tls = loopbackCertificate();
  const requests = new Map<string, number>();
  let provider: Provider | undefined;
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
    const pathname = new URL(request.url!, 'https://127.0.0.1').pathname;
    requests.set(pathname, (requests.get(pathname) ?? 0) + 1);
    if (pathname.startsWith('/interaction/')) {
      void finishInteraction(provider!, request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
      return;
    }
    void provider!.callback()(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = new Provider(issuer, configuration(options));
  const agent = new https.Agent({ ca: tls.cert });

  return {
    issuer,
    agent,
    certFile: tls.certFile,
    requests,
    count: (path) => requests.get(path) ?? 0,
    async idToken(clientId, nonce, account = 'alice') {
      const cookies = new Cookies();
      const query = new URLSearchParams({
        client_id: clientId,
        response_type: 'id_token',
        scope: 'openid email',
        redirect_uri: REDIRECT_URI,
        nonce,
        state: randomBytes(8).toString('hex'),
        login_hint: account,
      });
      let answer = await get(`${issuer}/auth?${query}`, agent, cookies);
      // /auth → /interaction/<uid> (logged in and granted) → /auth/<uid> → the client's redirect URI.
      for (let hops = 0; hops < 5 && answer.location && !answer.location.startsWith(REDIRECT_URI); hops++) {
        answer = await get(new URL(answer.location, issuer).href, agent, cookies);
      }
      assert.ok(answer.location?.startsWith(REDIRECT_URI), `the provider did not redirect to the client: HTTP ${answer.status} ${answer.location ?? answer.body.slice(0, 500)}`);
      const fragment = new URLSearchParams(new URL(answer.location!).hash.slice(1));
      const token = fragment.get('id_token');
      assert.ok(token, `no id_token in the redirect: ${answer.location}`);
      return token;
    },
    rotate(keys) {
      provider = new Provider(issuer, configuration({ ...options, keys }));
    },
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      tls.remove();
    },
  };
}

/** The interaction step without a page: the account of login_hint logs in and grants what the client asked. */
async function finishInteraction(provider: Provider, request: any, response: any): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  const accountId = String(details.params.login_hint ?? 'alice');
  const clientId = String(details.params.client_id);
  const grant = new provider.Grant({ accountId, clientId });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(request, response, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}
