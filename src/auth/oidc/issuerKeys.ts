// The signing keys of one configured OIDC issuer, cached: its discovery document
// (`<issuer>/.well-known/openid-configuration`, whose `issuer` must be the configured one exactly)
// names its JWKS, both fetched together (fetchJson.ts bounds each). The keys are kept for
// CACHE_LIFETIME_MS; a token naming a key they lack makes one early refresh, at most one per
// REFRESH_COOLDOWN_MS; callers waiting at the same moment share one fetch. When a refresh fails the
// keys held before stay in use, and the next attempt waits for the cool-down too, so a failing
// issuer is not hammered. Times are the injected clock's.
import type https from 'node:https';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../wire/clock.ts';
import { fetchJson, type FetchLimits } from './fetchJson.ts';
import { OidcIssuerUnavailable } from './refusals.ts';

/** How long fetched keys are used before they are fetched again. */
export const CACHE_LIFETIME_MS = 10 * 60_000;
/** The least time between two fetches of one issuer's keys (an unknown `kid`, or a failed fetch, cannot make more). */
export const REFRESH_COOLDOWN_MS = 30_000;
/** Bounds of each fetch: the discovery document, then the JWKS. */
export const DISCOVERY_LIMITS: FetchLimits = { timeoutMs: 5000, maxBytes: 64 * 1024 };
export const JWKS_LIMITS: FetchLimits = { timeoutMs: 5000, maxBytes: 128 * 1024 };
/** More keys than this in one JWKS is refused as a whole. */
export const MAX_KEYS = 100;

export interface IssuerKeysOptions {
  clock: Clock;
  /** The TLS agent of the fetches; Node's default (system CAs and NODE_EXTRA_CA_CERTS) without one. */
  agent?: https.Agent | undefined;
  discoveryLimits?: FetchLimits;
  jwksLimits?: FetchLimits;
}

interface Held {
  keySet: JWTVerifyGetKey;
  fetchedAt: number;
}

/** Where an issuer's discovery document is: the issuer without a trailing slash, then the well-known path. */
export const discoveryUrl = (issuer: string) => `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class IssuerKeys {
  private held: Held | undefined;
  private inFlight: Promise<Held> | undefined;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private lastFailure: Error | undefined;

  constructor(
    readonly issuer: string,
    private readonly options: IssuerKeysOptions,
  ) {}

  private now(): number {
    return this.options.clock().getTime();
  }

  /** The keys to verify with: those held while they are fresh, else fetched anew (the held ones if that fails). */
  async keySet(): Promise<JWTVerifyGetKey> {
    const held = this.held;
    if (held && this.now() - held.fetchedAt < CACHE_LIFETIME_MS) return held.keySet;
    return (await this.load()).keySet;
  }

  /**
   * The keys fetched anew because a token named one they lack, or undefined when the last fetch
   * was under REFRESH_COOLDOWN_MS ago (the keys held are as fresh as they may be).
   */
  async refreshed(): Promise<JWTVerifyGetKey | undefined> {
    if (this.inFlight) return (await this.inFlight).keySet;
    if (this.now() - this.lastAttemptAt < REFRESH_COOLDOWN_MS) return undefined;
    return (await this.load()).keySet;
  }

  /** One fetch at a time, at most one per cool-down; a failure falls back on the keys held. */
  private load(): Promise<Held> {
    if (this.inFlight) return this.inFlight;
    if (this.now() - this.lastAttemptAt < REFRESH_COOLDOWN_MS) {
      if (this.held) return Promise.resolve(this.held);
      const retryAt = new Date(this.lastAttemptAt + REFRESH_COOLDOWN_MS).toISOString();
      return Promise.reject(new OidcIssuerUnavailable(this.issuer, `${this.lastFailure?.message ?? 'the last fetch failed'}; next attempt after ${retryAt}`));
    }
    this.lastAttemptAt = this.now();
    const loading = this.fetchKeys().then(
      (held) => {
        this.held = held;
        this.lastFailure = undefined;
        return held;
      },
      (error: unknown) => {
        this.lastFailure = error instanceof Error ? error : new Error(String(error));
        if (this.held) return this.held;
        throw error instanceof OidcIssuerUnavailable ? error : new OidcIssuerUnavailable(this.issuer, this.lastFailure.message, { cause: error });
      },
    );
    this.inFlight = loading.finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchKeys(): Promise<Held> {
    const { agent } = this.options;
    const discovery = await fetchJson(discoveryUrl(this.issuer), { agent, ...(this.options.discoveryLimits ?? DISCOVERY_LIMITS) });
    if (!isObject(discovery)) throw new OidcIssuerUnavailable(this.issuer, 'its discovery document is not a JSON object');
    if (discovery.issuer !== this.issuer) {
      const named = typeof discovery.issuer === 'string' ? JSON.stringify(discovery.issuer.slice(0, 200)) : 'none';
      throw new OidcIssuerUnavailable(this.issuer, `its discovery document names the issuer ${named}, not the configured one`);
    }
    const jwksUri = discovery.jwks_uri;
    if (typeof jwksUri !== 'string' || !jwksUri.startsWith('https://')) {
      throw new OidcIssuerUnavailable(this.issuer, 'its discovery document has no https:// jwks_uri');
    }
    const jwks = await fetchJson(jwksUri, { agent, ...(this.options.jwksLimits ?? JWKS_LIMITS) });
    if (!isObject(jwks) || !Array.isArray(jwks.keys)) throw new OidcIssuerUnavailable(this.issuer, `its JWKS (${jwksUri}) has no "keys" list`);
    if (jwks.keys.length > MAX_KEYS) throw new OidcIssuerUnavailable(this.issuer, `its JWKS (${jwksUri}) has ${jwks.keys.length} keys, more than ${MAX_KEYS}`);
    let keySet: JWTVerifyGetKey;
    try {
      keySet = createLocalJWKSet(jwks as unknown as JSONWebKeySet);
    } catch (error) {
      throw new OidcIssuerUnavailable(this.issuer, `its JWKS (${jwksUri}) is malformed: ${(error as Error).message}`);
    }
    return { keySet, fetchedAt: this.now() };
  }
}
