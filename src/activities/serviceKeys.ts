// The service's own signing keys (verification tokens, App Proofs), one per purpose, read from the
// store (created there on first use, sealed under the deployment secret) and then kept in memory:
// a key never changes once created, so signing costs no round trip.
import type { KeyObject } from 'node:crypto';
import type { Database } from '../store/db.ts';
import { activeSigningKey, type PublicKeyJwk } from '../store/signingKeys.ts';

export interface ServiceKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: PublicKeyJwk;
}

export class ServiceKeys {
  private readonly loaded = new Map<string, Promise<ServiceKey>>();

  constructor(
    private readonly db: Database,
    private readonly secret: Buffer,
  ) {}

  /** The active key of a purpose ('verification-token', 'app-proof'). */
  get(purpose: string, algorithm = 'ES256'): Promise<ServiceKey> {
    let key = this.loaded.get(purpose);
    if (!key) {
      key = activeSigningKey(this.db, this.secret, { purpose, algorithm });
      this.loaded.set(purpose, key);
      // A failure (the database was away) is not remembered: the next request asks again.
      key.catch(() => this.loaded.delete(purpose));
    }
    return key;
  }
}
