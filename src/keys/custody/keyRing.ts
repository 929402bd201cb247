// The key-encryption keys a process can reach, as one KeyEncryptionKey: it seals under the one the
// process is configured with and opens a value sealed under any of them (the deployment secret's
// always, an HSM key when one is configured). That is what lets a store move to another KEK while it
// serves: values sealed before keep opening, `signet keys rewrap` re-seals them under the configured
// one. Each KEK keeps its own checks: the ring only picks which one a sealed value names.
import { KeyMaterialUnreadable, type KeyEncryptionKey, type WrappedDataKey } from './keyEncryptionKey.ts';

export interface KeyRing extends KeyEncryptionKey {
  /** The ids of every KEK that opens values, the one that seals first. */
  readonly reachable: readonly string[];
}

/** Seals under `sealWith`; opens what it or any of `opensToo` sealed (the same id twice counts once). */
export function keyRing(sealWith: KeyEncryptionKey, ...opensToo: KeyEncryptionKey[]): KeyRing {
  const members = new Map<string, KeyEncryptionKey>();
  for (const kek of [sealWith, ...opensToo]) if (!members.has(kek.id)) members.set(kek.id, kek);
  const reachable = [...members.keys()];
  return {
    id: sealWith.id,
    reachable,
    wrap: (dataKey) => sealWith.wrap(dataKey),
    async unwrap(wrapped: WrappedDataKey): Promise<Uint8Array> {
      const kek = members.get(wrapped.kekId);
      if (kek === undefined) {
        throw new KeyMaterialUnreadable('other_kek', `sealed under key-encryption key ${wrapped.kekId}, which this process cannot reach (it reaches ${reachable.join(', ')})`);
      }
      return kek.unwrap(wrapped);
    },
  };
}
