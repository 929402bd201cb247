// @turnkey/crypto, loaded on first use: it is heavy to load (it brings X.509 and CBOR code too), and
// only verify_otp with an encrypted bundle, otp_auth, and export and import bundles need it.
let library: Promise<typeof import('@turnkey/crypto')> | undefined;

export function turnkeyCrypto(): Promise<typeof import('@turnkey/crypto')> {
  library ??= import('@turnkey/crypto');
  return library;
}
