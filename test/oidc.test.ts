// OIDC id tokens verified against configured issuers (src/auth/oidc/), with a real OpenID Connect
// provider on loopback over https (test/support/oidcProvider.ts: oidc-provider, its discovery
// document, its JWKS and id tokens of the implicit flow): a good token, bound by its nonce to the
// session key as the ecosystem's clients compute it, is accepted; a wrong nonce, another audience,
// an expired token, one issued in the future, an unconfigured issuer (nothing fetched), a key the
// JWKS lacks, alg none and an HMAC token are refused, each naming its check; a rotated key is
// fetched once and accepted; N verifications make one fetch; the fetches are bounded.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { decodeJwt, generateKeyPair, importJWK, SignJWT, UnsecuredJWT, type JWK } from 'jose';
import type { ClientMetadata } from 'oidc-provider';
import { CACHE_LIFETIME_MS, REFRESH_COOLDOWN_MS } from '../src/auth/oidc/issuerKeys.ts';
import { OidcIssuerUnavailable, OidcTokenRefused, type OidcCheck } from '../src/auth/oidc/refusals.ts';
import { CLOCK_TOLERANCE_SECONDS, OidcVerifier } from '../src/auth/oidc/verifyIdToken.ts';
import { loopbackCertificate, oidcProviderSkip, sessionNonce, signingKey, startOidcProvider, type LoopbackOidcProvider } from './support/oidcProvider.ts';
import { ROOT } from './support/processes.ts';

const DISCOVERY = '/.well-known/openid-configuration';
const JWKS = '/jwks';

/** Session public keys (compressed P-256, hex); the nonce a client asks for is sessionNonce of one. */
const SESSION_KEY = `02${'5a'.repeat(32)}`;
const OTHER_KEY = `03${'a5'.repeat(32)}`;

/** A clock the test sets: the verifier decides by it alone. */
class SetClock {
  ms = 0;
  readonly now = () => new Date(this.ms);
  /** Just after the token was issued. */
  at(token: string, offsetMs = 1000): void {
    this.ms = Number(decodeJwt(token).iat) * 1000 + offsetMs;
  }
}

async function refusedWith(verifying: Promise<unknown>, check: OidcCheck, message: RegExp): Promise<void> {
  await assert.rejects(verifying, (error: unknown) => {
    assert.ok(error instanceof OidcTokenRefused, `not an OidcTokenRefused: ${String(error)}`);
    assert.equal(error.check, check, error.message);
    assert.match(error.message, message);
    return true;
  });
}

describe('OIDC id tokens against a real provider', { skip: oidcProviderSkip }, () => {
  let provider: LoopbackOidcProvider;
  let unconfigured: LoopbackOidcProvider;
  let ecKey: JWK;
  let rsaKey: JWK;
  const clients: ClientMetadata[] = [
    { client_id: 'app', id_token_signed_response_alg: 'ES256' },
    { client_id: 'other-app', id_token_signed_response_alg: 'ES256' },
    { client_id: 'rsa-app', id_token_signed_response_alg: 'RS256' },
    { client_id: 'hmac-app', client_secret: 'a client secret of forty-some characters!', token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: 'HS256' },
  ];

  before(async () => {
    ecKey = await signingKey('ES256', 'ec-1');
    rsaKey = await signingKey('RS256', 'rsa-1');
    provider = await startOidcProvider({ keys: [ecKey, rsaKey], clients });
    unconfigured = await startOidcProvider({ keys: [await signingKey('ES256', 'ec-1')], clients });
  });
  after(async () => {
    await provider?.close();
    await unconfigured?.close();
  });

  const fetches = () => ({ discovery: provider.count(DISCOVERY), jwks: provider.count(JWKS) });
  const verifierAt = (clock: SetClock) => new OidcVerifier({ issuers: [provider.issuer], clock: clock.now, agent: provider.agent });

  /** A token signed by the provider's own EC key, with claims of the test's choosing (for what the provider never issues). */
  const providerSigned = async (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'ec-1', ...header }).sign(await importJWK(ecKey, 'ES256'));

  test('a good token (ES256 and RS256) is accepted: issuer, subject, audiences, email, expiry', async () => {
    const clock = new SetClock();
    const verifier = verifierAt(clock);
    for (const clientId of ['app', 'rsa-app']) {
      const token = await provider.idToken(clientId, sessionNonce(SESSION_KEY), 'alice');
      clock.at(token);
      const identity = await verifier.verify(token, { publicKey: SESSION_KEY, audience: clientId });
      assert.deepEqual(identity, {
        issuer: provider.issuer,
        subject: 'alice',
        audiences: [clientId],
        email: 'alice@example.com',
        emailVerified: true,
        expiresAt: new Date(Number(decodeJwt(token).exp) * 1000),
      });
    }
  });

  test('a token requested for another session key is refused: wrong nonce', async () => {
    const clock = new SetClock();
    const token = await provider.idToken('app', sessionNonce(OTHER_KEY));
    clock.at(token);
    await refusedWith(verifierAt(clock).verify(token, { publicKey: SESSION_KEY }), 'nonce', /requested for another key/);
    const without = await providerSigned({ iss: provider.issuer, sub: 'alice', aud: 'app', iat: clock.ms / 1000, exp: clock.ms / 1000 + 600 });
    await refusedWith(verifierAt(clock).verify(without, { publicKey: SESSION_KEY }), 'nonce', /has no "nonce"/);
  });

  test("another client's token shows its audience, and is refused where another audience is expected", async () => {
    const clock = new SetClock();
    const verifier = verifierAt(clock);
    const token = await provider.idToken('other-app', sessionNonce(SESSION_KEY));
    clock.at(token);
    assert.deepEqual((await verifier.verify(token, { publicKey: SESSION_KEY })).audiences, ['other-app']);
    await refusedWith(verifier.verify(token, { publicKey: SESSION_KEY, audience: 'app' }), 'audience', /issued to "other-app", not to "app"/);
    const noAudience = await providerSigned({ iss: provider.issuer, sub: 'alice', nonce: sessionNonce(SESSION_KEY), iat: clock.ms / 1000, exp: clock.ms / 1000 + 600 });
    await refusedWith(verifier.verify(noAudience, { publicKey: SESSION_KEY }), 'audience', /no "aud" claim/);
  });

  test('an expired token is refused, and one issued in the future', async () => {
    const clock = new SetClock();
    const verifier = verifierAt(clock);
    const token = await provider.idToken('app', sessionNonce(SESSION_KEY));
    const { iat, exp } = decodeJwt(token) as { iat: number; exp: number };
    clock.ms = (exp - CLOCK_TOLERANCE_SECONDS + 1) * 1000; // within the tolerance: still good
    await verifier.verify(token, { publicKey: SESSION_KEY });
    clock.ms = (exp + CLOCK_TOLERANCE_SECONDS) * 1000;
    await refusedWith(verifier.verify(token, { publicKey: SESSION_KEY }), 'expiry', /expired at/);
    clock.ms = (iat - CLOCK_TOLERANCE_SECONDS - 1) * 1000;
    await refusedWith(verifier.verify(token, { publicKey: SESSION_KEY }), 'issued-at', /issued in the future/);
  });

  test('a token of an issuer that is not configured is refused before anything is fetched', async () => {
    const clock = new SetClock();
    const token = await unconfigured.idToken('app', sessionNonce(SESSION_KEY));
    clock.at(token);
    const before = { ...fetches(), theirs: unconfigured.count(DISCOVERY) + unconfigured.count(JWKS) };
    await refusedWith(verifierAt(clock).verify(token, { publicKey: SESSION_KEY }), 'issuer', /is not one of SIGNET_OIDC_ISSUERS/);
    assert.deepEqual({ ...fetches(), theirs: unconfigured.count(DISCOVERY) + unconfigured.count(JWKS) }, before);
  });

  test("a key the issuer's JWKS lacks: one refresh, then refused; a known kid with another key: bad signature", async () => {
    const clock = new SetClock();
    const verifier = verifierAt(clock);
    const good = await provider.idToken('app', sessionNonce(SESSION_KEY));
    clock.at(good);
    await verifier.verify(good, { publicKey: SESSION_KEY });
    const { privateKey } = await generateKeyPair('ES256');
    const claims = { iss: provider.issuer, sub: 'alice', aud: 'app', nonce: sessionNonce(SESSION_KEY), iat: clock.ms / 1000, exp: clock.ms / 1000 + 600 };
    const stranger = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'stranger' }).sign(privateKey);
    // Just fetched: the keys are as fresh as they may be, no refresh.
    let before = fetches();
    await refusedWith(verifier.verify(stranger, { publicKey: SESSION_KEY }), 'key', /has its "kid" "stranger"/);
    assert.deepEqual(fetches(), before);
    // Past the cool-down: one refresh, and a second such token at once makes none.
    clock.ms += REFRESH_COOLDOWN_MS;
    before = fetches();
    await refusedWith(verifier.verify(stranger, { publicKey: SESSION_KEY }), 'key', /"stranger"/);
    await refusedWith(verifier.verify(stranger, { publicKey: SESSION_KEY }), 'key', /"stranger"/);
    assert.deepEqual(fetches(), { discovery: before.discovery + 1, jwks: before.jwks + 1 });
    const impostor = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'ec-1' }).sign(privateKey);
    await refusedWith(verifier.verify(impostor, { publicKey: SESSION_KEY }), 'signature', /does not verify/);
  });

  test('alg none and an HMAC token (the provider signs it with the client secret) are refused, nothing fetched', async () => {
    const clock = new SetClock();
    const verifier = verifierAt(clock);
    const hmac = await provider.idToken('hmac-app', sessionNonce(SESSION_KEY));
    clock.at(hmac);
    const before = fetches();
    await refusedWith(verifier.verify(hmac, { publicKey: SESSION_KEY }), 'algorithm', /"HS256" is not accepted.*never none or HMAC/);
    const unsecured = new UnsecuredJWT({ ...decodeJwt(hmac), aud: 'app' }).encode();
    await refusedWith(verifier.verify(unsecured, { publicKey: SESSION_KEY }), 'algorithm', /"none" is not accepted/);
    assert.deepEqual(fetches(), before);
    await refusedWith(verifier.verify('not.a.token', { publicKey: SESSION_KEY }), 'token', /not a JWT/);
  });

  test('N verifications make one fetch of the discovery document and the JWKS; past the cache lifetime, one more', async () => {
    const clock = new SetClock();
    const verifier = verifierAt(clock);
    const token = await provider.idToken('app', sessionNonce(SESSION_KEY));
    clock.at(token);
    const before = fetches();
    await Promise.all(Array.from({ length: 10 }, () => verifier.verify(token, { publicKey: SESSION_KEY })));
    for (let i = 0; i < 10; i++) await verifier.verify(token, { publicKey: SESSION_KEY });
    assert.deepEqual(fetches(), { discovery: before.discovery + 1, jwks: before.jwks + 1 });
    clock.ms += CACHE_LIFETIME_MS;
    for (let i = 0; i < 5; i++) await verifier.verify(token, { publicKey: SESSION_KEY });
    assert.deepEqual(fetches(), { discovery: before.discovery + 2, jwks: before.jwks + 2 });
  });

  // Last: it changes the provider's keys.
  test('the provider rotates its key: the cache refreshes once and accepts the new key, and the old one still', async () => {
    const clock = new SetClock();
    const verifier = verifierAt(clock);
    const old = await provider.idToken('app', sessionNonce(SESSION_KEY));
    clock.at(old);
    await verifier.verify(old, { publicKey: SESSION_KEY });
    provider.rotate([await signingKey('ES256', 'ec-2'), ecKey, rsaKey]);
    const rotated = await provider.idToken('app', sessionNonce(SESSION_KEY));
    assert.equal(JSON.parse(Buffer.from(rotated.split('.')[0]!, 'base64url').toString()).kid, 'ec-2');
    clock.ms += REFRESH_COOLDOWN_MS;
    const before = fetches();
    assert.equal((await verifier.verify(rotated, { publicKey: SESSION_KEY })).subject, 'alice');
    await verifier.verify(rotated, { publicKey: SESSION_KEY });
    await verifier.verify(old, { publicKey: SESSION_KEY });
    assert.deepEqual(fetches(), { discovery: before.discovery + 1, jwks: before.jwks + 1 });
  });
});

describe("fetching an issuer's keys is bounded", { skip: oidcProviderSkip }, () => {
  /** A loopback https issuer answering each path as `answers` says (a function of the issuer's URL). */
  let tls: ReturnType<typeof loopbackCertificate>;
  let server: https.Server;
  let issuer: string;
  let agent: https.Agent;
  const requests: string[] = [];
  let answer: (path: string, response: import('node:http').ServerResponse) => void = () => {};

  before(async () => {
    tls = loopbackCertificate();
    server = https.createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
      requests.push(request.url!);
      answer(request.url!, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    agent = new https.Agent({ ca: tls.cert });
  });
  after(async () => {
    agent?.destroy();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    tls?.remove();
  });

  const discovery = (response: import('node:http').ServerResponse, document: Record<string, unknown> = { issuer, jwks_uri: `${issuer}/jwks` }) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));

  async function unavailable(message: RegExp, options: { jwksTimeoutMs?: number } = {}): Promise<void> {
    const clock = new SetClock();
    clock.ms = Date.UTC(2030, 0, 1);
    const verifier = new OidcVerifier({
      issuers: [issuer],
      clock: clock.now,
      agent,
      ...(options.jwksTimeoutMs ? { jwksLimits: { timeoutMs: options.jwksTimeoutMs, maxBytes: 128 * 1024 } } : {}),
    });
    const { privateKey } = await generateKeyPair('ES256');
    const now = clock.ms / 1000;
    const token = await new SignJWT({ iss: issuer, sub: 'alice', aud: 'app', nonce: sessionNonce(SESSION_KEY), iat: now, exp: now + 600 })
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .sign(privateKey);
    requests.length = 0;
    const refused = (error: unknown) => {
      assert.ok(error instanceof OidcIssuerUnavailable, String(error));
      assert.match(error.message, message);
      return true;
    };
    await assert.rejects(verifier.verify(token, { publicKey: SESSION_KEY }), refused);
    // Within the cool-down a second token fetches nothing: the failure is told again.
    const fetched = requests.length;
    assert.ok(fetched >= 1);
    await assert.rejects(verifier.verify(token, { publicKey: SESSION_KEY }), (error: unknown) => refused(error) && /next attempt after/.test((error as Error).message));
    assert.equal(requests.length, fetched);
  }

  test('a discovery document naming another issuer', async () => {
    answer = (_path, response) => discovery(response, { issuer: `${issuer}/other`, jwks_uri: `${issuer}/jwks` });
    await unavailable(/names the issuer ".*\/other", not the configured one/);
  });

  test('a redirect is not followed', async () => {
    answer = (_path, response) => response.writeHead(302, { location: 'https://127.0.0.1:1/elsewhere' }).end();
    await unavailable(/HTTP 302; redirects are not followed/);
  });

  test('a JWKS over the size limit', async () => {
    answer = (path, response) => {
      if (path.startsWith('/.well-known/')) return discovery(response);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [], padding: 'x'.repeat(200 * 1024) }));
    };
    await unavailable(/larger than 131072 bytes/);
  });

  test('a JWKS that never comes', async () => {
    answer = (path, response) => {
      if (path.startsWith('/.well-known/')) return discovery(response);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"keys":[');
    };
    await unavailable(/no complete answer within 300 ms/, { jwksTimeoutMs: 300 });
  });
});

describe('a deployment trusts its issuer through the system CAs and NODE_EXTRA_CA_CERTS', { skip: oidcProviderSkip }, () => {
  test("without an agent the verifier fetches with Node's default, which NODE_EXTRA_CA_CERTS extends", async () => {
    const provider = await startOidcProvider({ keys: [await signingKey('ES256', 'ec-1')], clients: [{ client_id: 'app', id_token_signed_response_alg: 'ES256' }] });
    try {
      const token = await provider.idToken('app', sessionNonce(SESSION_KEY));
      const script = `
        import { OidcVerifier } from './src/auth/oidc/verifyIdToken.ts';
        const verifier = new OidcVerifier({ issuers: [process.env.ISSUER], clock: () => new Date(Number(process.env.AT)) });
        verifier.verify(process.env.TOKEN, { publicKey: process.env.KEY }).then(
          (identity) => console.log(JSON.stringify(identity)),
          (error) => console.log(JSON.stringify({ error: error.name, message: error.message })),
        );`;
      // Asynchronously: the provider answers from this process.
      const run = async (extra: Record<string, string>) => {
        const env: NodeJS.ProcessEnv = { ...process.env, ISSUER: provider.issuer, TOKEN: token, KEY: SESSION_KEY, AT: String(Number(decodeJwt(token).iat) * 1000 + 1000) };
        delete env.NODE_EXTRA_CA_CERTS;
        Object.assign(env, extra);
        const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
        return JSON.parse(stdout.trim().split('\n').at(-1)!);
      };
      const untrusted = await run({});
      assert.equal(untrusted.error, 'OidcIssuerUnavailable', JSON.stringify(untrusted));
      assert.match(untrusted.message, /certificate/);
      const trusted = await run({ NODE_EXTRA_CA_CERTS: provider.certFile });
      assert.equal(trusted.subject, 'alice', JSON.stringify(trusted));
      assert.deepEqual(trusted.audiences, ['app']);
    } finally {
      await provider.close();
    }
  });
});
