// Verifies an OpenID Connect id token against the configured issuers (SIGNET_OIDC_ISSUERS) and binds
// it to a session key: the issuer is looked up before anything is fetched (only configured issuers
// ever are), the signature verified with that issuer's published keys (issuerKeys.ts) by jose,
// asymmetric algorithms only, then its times by the injected clock, its audience and its nonce,
// which must be the SHA-256 of the session public key as the ecosystem's clients compute it.
import { createHash, timingSafeEqual } from 'node:crypto';
import type https from 'node:https';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../wire/clock.ts';
import type { FetchLimits } from './fetchJson.ts';
import { IssuerKeys } from './issuerKeys.ts';
import { OidcIssuerUnavailable, OidcTokenRefused } from './refusals.ts';

/** The signature algorithms accepted: RSA and ECDSA (and EdDSA); never `none`, never HMAC (HS*). */
export const OIDC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
/** Accepted distance of `exp`, `nbf` and `iat` from the clock. */
export const CLOCK_TOLERANCE_SECONDS = 60;
/** A longer token is refused unread (providers' id tokens are 1–3 KiB). */
export const MAX_TOKEN_LENGTH = 16 * 1024;

/** What a verified id token says. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  /** `aud`, always as a list: the caller compares it with the audience bound to the user. */
  audiences: string[];
  email?: string;
  emailVerified?: boolean;
  expiresAt: Date;
}

export interface OidcVerifierOptions {
  /** The configured issuers (SIGNET_OIDC_ISSUERS), each compared as written. */
  issuers: readonly string[];
  clock: Clock;
  /** The TLS agent of the key fetches; Node's default (system CAs and NODE_EXTRA_CA_CERTS) without one. */
  agent?: https.Agent;
  discoveryLimits?: FetchLimits;
  jwksLimits?: FetchLimits;
}

export interface Expected {
  /**
   * The session public key (hex) the token's nonce must be bound to. Left out only where a token
   * proves who its holder is without starting a session (binding it to a user, finding the user's
   * sub-organizations): its nonce is then not read.
   */
  publicKey: string | undefined;
  /** When given, `aud` must hold it (or one of them). */
  audience?: string | readonly string[];
}

/**
 * The nonce of an id token bound to `publicKey`: the lowercase hex SHA-256 of the key's hex string
 * (its UTF-8 bytes), as the ecosystem's clients put it in their authorization request.
 */
export function oidcNonce(publicKey: string): string {
  return createHash('sha256').update(publicKey, 'utf8').digest('hex');
}

const quoted = (value: unknown) => JSON.stringify(String(value).slice(0, 200));

/** jose's refusals, each as the check that failed. */
function refusal(error: unknown): OidcTokenRefused | undefined {
  if (error instanceof errors.JWTExpired) return new OidcTokenRefused('expiry', `it expired at ${new Date(Number(error.payload.exp) * 1000).toISOString()}`);
  if (error instanceof errors.JWTClaimValidationFailed) {
    const check = ({ iss: 'issuer', aud: 'audience', sub: 'subject', iat: 'issued-at', nbf: 'not-before', exp: 'expiry', nonce: 'nonce' } as const)[error.claim];
    const text = error.reason === 'missing' ? `it has no "${error.claim}" claim` : `its "${error.claim}" claim is not valid (${error.message})`;
    return new OidcTokenRefused(check ?? 'token', text);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return new OidcTokenRefused('signature', "its signature does not verify with the issuer's key");
  if (error instanceof errors.JOSEAlgNotAllowed) return new OidcTokenRefused('algorithm', error.message);
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return new OidcTokenRefused('key', 'it names no key ("kid") and several keys of the issuer fit');
  }
  if (error instanceof errors.JOSENotSupported || error instanceof errors.JWKSInvalid) return new OidcTokenRefused('key', error.message);
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return new OidcTokenRefused('token', error.message);
  return undefined;
}

export class OidcVerifier {
  private readonly issuers = new Map<string, IssuerKeys>();
  private readonly clock: Clock;

  constructor(options: OidcVerifierOptions) {
    this.clock = options.clock;
    for (const issuer of options.issuers) {
      this.issuers.set(issuer, new IssuerKeys(issuer, { clock: options.clock, agent: options.agent, discoveryLimits: options.discoveryLimits, jwksLimits: options.jwksLimits }));
    }
  }

  /** The identity an id token proves, or an OidcTokenRefused naming the failed check (OidcIssuerUnavailable when its keys cannot be had). */
  async verify(token: string, expected: Expected): Promise<OidcIdentity> {
    const { issuerKeys, header } = this.read(token);
    const claims = await this.verified(token, header.kid, issuerKeys);
    return this.identity(claims, expected);
  }

  /** The token's issuer and header, read before anything is fetched; their checks need no key. */
  private read(token: string): { issuerKeys: IssuerKeys; header: { alg?: string; kid?: string } } {
    if (typeof token !== 'string' || token.length === 0) throw new OidcTokenRefused('token', 'no token was given');
    if (token.length > MAX_TOKEN_LENGTH) throw new OidcTokenRefused('token', `it is longer than ${MAX_TOKEN_LENGTH} characters`);
    let header: { alg?: unknown; kid?: unknown };
    let payload: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      payload = decodeJwt(token);
    } catch {
      throw new OidcTokenRefused('token', 'it is not a JWT (three base64url parts: a JSON header, JSON claims and a signature)');
    }
    if (typeof header.alg !== 'string' || !(OIDC_ALGORITHMS as readonly string[]).includes(header.alg)) {
      throw new OidcTokenRefused('algorithm', `its "alg" ${quoted(header.alg)} is not accepted: it must be one of ${OIDC_ALGORITHMS.join(', ')} (never none or HMAC)`);
    }
    if (typeof payload.iss !== 'string') throw new OidcTokenRefused('issuer', 'it has no "iss" claim');
    const issuerKeys = this.issuers.get(payload.iss);
    if (!issuerKeys) throw new OidcTokenRefused('issuer', `its issuer ${quoted(payload.iss)} is not one of SIGNET_OIDC_ISSUERS`);
    if (header.kid !== undefined && typeof header.kid !== 'string') throw new OidcTokenRefused('token', 'its "kid" is not a string');
    return { issuerKeys, header: { alg: header.alg, ...(header.kid !== undefined ? { kid: header.kid as string } : {}) } };
  }

  /** The claims, once the signature verified with the issuer's keys (fetched anew once for an unknown `kid`) and `exp`/`nbf` hold. */
  private async verified(token: string, kid: string | undefined, issuerKeys: IssuerKeys): Promise<JWTPayload> {
    const attempt = async (keySet: JWTVerifyGetKey) => {
      const { payload } = await jwtVerify(token, keySet, {
        issuer: issuerKeys.issuer,
        algorithms: [...OIDC_ALGORITHMS],
        currentDate: this.clock(),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub', 'aud'],
      });
      return payload;
    };
    try {
      try {
        return await attempt(await issuerKeys.keySet());
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
        // The issuer may have rotated its keys since they were fetched: once, fetch them anew.
        const refreshed = await issuerKeys.refreshed();
        if (!refreshed) throw error;
        return await attempt(refreshed);
      }
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey) {
        throw new OidcTokenRefused('key', `no key of the issuer ${issuerKeys.issuer} has its "kid" ${kid === undefined ? '(none given)' : quoted(kid)}`);
      }
      if (error instanceof OidcIssuerUnavailable) throw error;
      throw refusal(error) ?? error;
    }
  }

  private identity(claims: JWTPayload, expected: Expected): OidcIdentity {
    const now = this.clock().getTime() / 1000;
    // jose checks a future iat only with a maximum token age; an id token is not issued ahead.
    if (typeof claims.iat !== 'number' || claims.iat > now + CLOCK_TOLERANCE_SECONDS) {
      throw new OidcTokenRefused('issued-at', `it is issued in the future (iat ${new Date(Number(claims.iat) * 1000).toISOString()})`);
    }
    if (typeof claims.sub !== 'string' || claims.sub.length === 0 || claims.sub.length > 255) {
      throw new OidcTokenRefused('subject', 'its "sub" is not a string of 1 to 255 characters');
    }
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : claims.aud;
    if (!Array.isArray(audiences) || audiences.length === 0 || !audiences.every((audience) => typeof audience === 'string' && audience.length > 0)) {
      throw new OidcTokenRefused('audience', 'its "aud" is not a non-empty string or list of them');
    }
    if (expected.audience !== undefined) {
      const wanted = typeof expected.audience === 'string' ? [expected.audience] : expected.audience;
      if (!audiences.some((audience) => wanted.includes(audience))) {
        throw new OidcTokenRefused('audience', `it is issued to ${audiences.map(quoted).join(', ')}, not to ${wanted.map(quoted).join(' or ')}`);
      }
    }
    if (expected.publicKey === undefined) return this.claimsOf(claims, audiences);
    if (typeof claims.nonce !== 'string') throw new OidcTokenRefused('nonce', 'it has no "nonce": it must be the SHA-256 (hex) of the session public key');
    const nonce = Buffer.from(claims.nonce, 'utf8');
    const bound = Buffer.from(oidcNonce(expected.publicKey), 'utf8');
    if (nonce.length !== bound.length || !timingSafeEqual(nonce, bound)) {
      throw new OidcTokenRefused('nonce', `its "nonce" is not the SHA-256 (hex) of the public key ${quoted(expected.publicKey)}: the token was requested for another key`);
    }
    return this.claimsOf(claims, audiences);
  }

  private claimsOf(claims: JWTPayload, audiences: string[]): OidcIdentity {
    const emailVerified = claims.email_verified === true || claims.email_verified === 'true' ? true : claims.email_verified === false || claims.email_verified === 'false' ? false : undefined;
    return {
      issuer: String(claims.iss),
      subject: String(claims.sub),
      audiences,
      ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
      ...(emailVerified !== undefined ? { emailVerified } : {}),
      expiresAt: new Date(Number(claims.exp) * 1000),
    };
  }
}
