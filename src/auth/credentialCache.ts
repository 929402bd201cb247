// The credentials that stamp requests, kept in memory after their first lookup, so a stamped
// request costs no round trip to find its key. What the cache says is never final: every statement
// of the request checks again that the credential may be used (store/credentials.ts), and a refusal
// there drops the entry, so a revocation in any process takes effect at once.
import { findApiKeysByPublicKey, type ApiKeyRecord } from '../store/apiKeys.ts';
import { findAuthenticator, type AuthenticatorRecord } from '../store/authenticators.ts';
import type { Queryable } from '../store/db.ts';
import { findOrganizationPlace } from '../store/organizations.ts';

/** Entries kept of each kind; the oldest goes first. */
const LIMIT = 10_000;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= LIMIT) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}

export class CredentialCache {
  private readonly apiKeys = new Map<string, ApiKeyRecord[]>();
  private readonly authenticators = new Map<string, Omit<AuthenticatorRecord, 'signCount'>>();
  private readonly lookups = new Map<string, Promise<ApiKeyRecord[]>>();
  /** Each organization's parent (null for none): an organization gets its parent when it is made, and keeps it. */
  private readonly parents = new Map<string, string | null>();

  /**
   * The registrations of a public key, read from the store when none of these organizations' is known
   * yet (a key may be registered in another tree of organizations later; in the same tree it cannot
   * be, so a known one that reaches is the only one). Unknown keys are not remembered.
   */
  async apiKeysFor(db: Queryable, publicKey: string, organizationIds: readonly string[]): Promise<ApiKeyRecord[]> {
    const known = this.apiKeys.get(publicKey);
    if (known?.some((key) => organizationIds.includes(key.organizationId))) return known;
    // Requests that arrive together with a new key share one lookup.
    let lookup = this.lookups.get(publicKey);
    if (!lookup) {
      lookup = findApiKeysByPublicKey(db, publicKey).finally(() => this.lookups.delete(publicKey));
      this.lookups.set(publicKey, lookup);
    }
    const found = await lookup;
    if (found.length > 0) remember(this.apiKeys, publicKey, found);
    return found;
  }

  /** A passkey's registration without its counter (the counter is always read where it is advanced). */
  async authenticatorFor(db: Queryable, credentialId: string): Promise<Omit<AuthenticatorRecord, 'signCount'> | undefined> {
    const known = this.authenticators.get(credentialId);
    if (known) return known;
    const found = await findAuthenticator(db, credentialId);
    if (found) {
      const { signCount: _counter, ...registration } = found;
      remember(this.authenticators, credentialId, registration);
    }
    return found;
  }

  /** The organization's parent, null for a top-level organization, undefined for an unknown one. */
  async parentOf(db: Queryable, organizationId: string): Promise<string | null | undefined> {
    const known = this.parents.get(organizationId);
    if (known !== undefined) return known;
    const place = await findOrganizationPlace(db, organizationId);
    if (place) remember(this.parents, organizationId, place.parentId);
    return place?.parentId;
  }

  /** Drops what is known of a credential (a statement refused it). */
  forget(credential: { publicKey?: string; credentialId?: string }): void {
    if (credential.publicKey) this.apiKeys.delete(credential.publicKey);
    if (credential.credentialId) this.authenticators.delete(credential.credentialId);
  }
}
