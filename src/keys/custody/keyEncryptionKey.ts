// The key-encryption key (KEK) behind which wallet key material's data keys are wrapped. One small
// interface, so that a KEK held elsewhere (an HSM over PKCS#11, a cloud KMS) can take the place of
// the one derived from the deployment secret; asynchronous for those. Pure: no I/O of its own here.

/** A data key wrapped by a KEK, and which KEK (its id is stored beside the sealed value). */
export interface WrappedDataKey {
  kekId: string;
  wrapped: Uint8Array;
}

export interface KeyEncryptionKey {
  /** Names this KEK in sealed values: letters, digits, ':', '_' and '-', at most 64 characters; never secret. */
  readonly id: string;
  /** Wraps a 32-byte data key. The caller zeroes the data key afterwards. */
  wrap(dataKey: Uint8Array): Promise<WrappedDataKey>;
  /** The data key back (the caller zeroes it after use); throws KeyMaterialUnreadable when this KEK cannot. */
  unwrap(wrapped: WrappedDataKey): Promise<Uint8Array>;
}

export const KEK_ID = /^[A-Za-z0-9:_-]{1,64}$/;

/**
 * Sealed key material could not be opened: sealed under another KEK (`other_kek`), a wrapped data key
 * this KEK does not open (`unwrap_failed`), a value changed or moved to another row, organization or
 * kind (`not_authentic`), or text that is no sealed value (`format`). Never carries key material.
 */
export class KeyMaterialUnreadable extends Error {
  override name = 'KeyMaterialUnreadable';
  constructor(
    readonly problem: 'other_kek' | 'unwrap_failed' | 'not_authentic' | 'format',
    message: string,
  ) {
    super(message);
  }
}
