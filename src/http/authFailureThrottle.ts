// Throttles failed authentications per client address (SIGNET_AUTH_FAILURE_LIMIT): each forged or
// unknown stamp costs a signature check and a lookup, so an address that keeps failing is answered
// 429 before either. A credential that has authenticated before is never held back, so a client that
// signs correctly is not slowed by someone else's failures, even behind the same address.
// The admin API keeps a throttle of its own (adminRoutes.ts): wrong bearer tokens, no credentials.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { stampCredential } from '../auth/parseStamp.ts';
import type { RateLimitSetting } from '../config.ts';
import { resourceExhausted } from '../errors.ts';

interface Bucket {
  /** Failures still allowed; refills continuously at count per window. */
  tokens: number;
  updatedMs: number;
  /** The address used up its failures and has not been back to a full budget since: one burst. */
  inBurst: boolean;
}

/** Bounds of the in-process state: addresses tracked and credentials remembered as good. */
const MAX_ADDRESSES = 100_000;
const MAX_KNOWN_CREDENTIALS = 100_000;

export class AuthFailureThrottle {
  private readonly buckets = new Map<string, Bucket>();
  private readonly knownCredentials = new Set<string>();
  private readonly refillPerMs: number;

  constructor(
    private readonly limit: RateLimitSetting,
    private readonly now: () => number = Date.now,
    /** What the 429's message tells the client to retry with. */
    private readonly retryWith = 'a valid stamp',
  ) {
    this.refillPerMs = limit.count / (limit.windowSeconds * 1000);
  }

  /**
   * Throws 429 when `address` has used up its failures and `credential` (the stamp's public key or
   * credential id, read only when needed) has never authenticated here.
   */
  check(address: string, credential: () => string | undefined): void {
    const bucket = this.buckets.get(address);
    if (!bucket) return;
    const tokens = this.refill(bucket);
    if (tokens >= 1) return;
    const id = credential();
    if (id !== undefined && this.knownCredentials.has(id)) return;
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - tokens) / this.refillPerMs / 1000));
    throw resourceExhausted(
      'TOO_MANY_AUTH_FAILURES',
      `too many failed authentications from this address (more than ${this.limit.count} in ${this.limit.windowSeconds} seconds); ` +
        `retry in ${retryAfterSeconds} seconds with ${this.retryWith}`,
      retryAfterSeconds,
    );
  }

  /**
   * Counts one refused stamp (401/403) against the address. True when this failure used up the
   * address's budget and begins a burst: once per burst, which lasts until the budget is full again.
   */
  failed(address: string): boolean {
    let bucket = this.buckets.get(address);
    if (bucket) {
      this.refill(bucket);
      this.buckets.delete(address); // re-inserted below: the Map's order is the order of last failure
    } else {
      if (this.buckets.size >= MAX_ADDRESSES) this.evictOldest(this.buckets);
      bucket = { tokens: this.limit.count, updatedMs: this.now(), inBurst: false };
    }
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    this.buckets.set(address, bucket);
    if (bucket.inBurst || bucket.tokens >= 1) return false;
    bucket.inBurst = true;
    return true;
  }

  /** Remembers a credential that authenticated, so its requests pass a throttled address. */
  succeeded(credential: string): void {
    if (this.knownCredentials.has(credential)) return;
    if (this.knownCredentials.size >= MAX_KNOWN_CREDENTIALS) this.evictOldest(this.knownCredentials);
    this.knownCredentials.add(credential);
  }

  private refill(bucket: Bucket): number {
    const now = this.now();
    bucket.tokens = Math.min(this.limit.count, bucket.tokens + (now - bucket.updatedMs) * this.refillPerMs);
    bucket.updatedMs = now;
    if (bucket.tokens >= this.limit.count) bucket.inBurst = false;
    return bucket.tokens;
  }

  private evictOldest(collection: Map<string, unknown> | Set<string>): void {
    const oldest = collection.keys().next();
    if (!oldest.done) collection.delete(oldest.value);
  }
}

/**
 * Applies the throttle to the stamped public API (/public/…): checked before the body is read, and a
 * 401 counts against the client address (the stamp checker vouches for credentials that
 * authenticate, through succeeded()). The client address is request.ip, which follows
 * X-Forwarded-For only from SIGNET_TRUSTED_PROXIES.
 */
export function registerAuthFailureThrottle(app: FastifyInstance, throttle: AuthFailureThrottle): void {
  const stamped = (request: FastifyRequest) => request.url.startsWith('/public/');
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      if (stamped(request)) throttle.check(request.ip, () => stampCredential(request.headers));
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode === 401 && stamped(request)) throttle.failed(request.ip);
    done();
  });
}
