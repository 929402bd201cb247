// Authenticates stamped requests for the public routes: the stamp verified over the raw body, the
// credential found (in memory after its first use) and checked against the body's organization; and
// when a statement of the request finds the credential revoked or expired meanwhile, it is forgotten.
import { authenticate } from '../auth/authenticate.ts';
import { authenticateReadOnlySession } from '../auth/authenticateReadOnlySession.ts';
import type { VerifyingKey } from '../auth/authenticateAttested.ts';
import type { CredentialCache } from '../auth/credentialCache.ts';
import type { Stamp } from '../auth/parseStamp.ts';
import type { Principal } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import { SignetError, unauthenticated } from '../errors.ts';
import type { Clock } from '../wire/clock.ts';

export class StampChecker {
  constructor(
    private readonly deps: {
      /** The store the credential is read from. */
      db: Parameters<typeof authenticate>[0];
      config: Config;
      credentials: CredentialCache;
      /** The verification-token keys attested stamps are checked with. */
      verificationTokenKeys?: () => Promise<VerifyingKey[]>;
      /** The session keys read-only sessions (X-Session) are checked with; without them such sessions are refused. */
      sessionKeys?: () => Promise<VerifyingKey[]>;
      /** Told of every stamp that authenticated, as stampCredential() names it (the failure throttle lets it through). */
      onAuthenticated?: (credential: string) => void;
      now?: Clock;
    },
  ) {}

  /**
   * The principal of the stamp: verified over the body and checked against the body's organization
   * (`fromSubOrganization`: a sub-organization's credential may name its parent, as whoami and
   * stamp_login allow), or the refusal. A stamp that authenticated is told to the failure throttle.
   */
  async principalOf(body: Buffer, stamp: Stamp, organizationId: string, options: { fromSubOrganization?: boolean; recoveryKey?: boolean } = {}): Promise<Principal> {
    const { db, config, credentials } = this.deps;
    const principal = await authenticate(db, body, stamp, organizationId, {
      origins: config.webauthnOrigins,
      rpId: config.webauthnRpId,
      now: this.deps.now?.() ?? new Date(),
      cache: credentials,
      ...(options.fromSubOrganization ? { fromSubOrganization: true } : {}),
      ...(options.recoveryKey ? { recoveryKey: true } : {}),
      ...(this.deps.verificationTokenKeys ? { verificationTokenKeys: this.deps.verificationTokenKeys } : {}),
    });
    this.deps.onAuthenticated?.(stamp.kind === 'webauthn' ? stamp.credentialId : stamp.publicKey);
    return principal;
  }

  /**
   * The principal of a read-only session (X-Session, queries only): its token verified and checked
   * against the body's organization, or the refusal.
   */
  async sessionPrincipalOf(token: string, organizationId: string): Promise<Principal> {
    const { db, credentials, sessionKeys } = this.deps;
    if (!sessionKeys) throw unauthenticated('X-Session is not accepted here; stamp the request with X-Stamp or X-Stamp-WebAuthn', 'malformed');
    return authenticateReadOnlySession(db, token, organizationId, { now: this.deps.now?.() ?? new Date(), sessionKeys, cache: credentials });
  }

  /**
   * Told of an error the request's work ended with: when a statement refused the principal's
   * credential (revoked or expired since it was remembered), the credential is forgotten, so the next
   * request reads it again.
   */
  failed(principal: Principal, error: unknown): void {
    if (error instanceof SignetError && error.stampFailure) this.deps.credentials.forget(principal);
  }

  /**
   * Runs `use` as the principal of the stamp (principalOf), or of the read-only session
   * (sessionPrincipalOf), and tells `failed` of the error it throws.
   */
  async checked<T>(
    body: Buffer,
    credential: Stamp | { readOnlySession: string },
    organizationId: string,
    use: (principal: Principal) => Promise<T>,
    options: { fromSubOrganization?: boolean } = {},
  ): Promise<T> {
    const principal =
      'readOnlySession' in credential
        ? await this.sessionPrincipalOf(credential.readOnlySession, organizationId)
        : await this.principalOf(body, credential, organizationId, options);
    try {
      return await use(principal);
    } catch (error) {
      this.failed(principal, error);
      throw error;
    }
  }
}

/** The stamp header as received, kept with the activity. */
export function stampHeaderOf(headers: Record<string, string | string[] | undefined>): string {
  const value = headers['x-stamp-webauthn'] ?? headers['x-stamp-attested'] ?? headers['x-stamp'];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}
