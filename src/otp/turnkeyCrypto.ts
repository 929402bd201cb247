// @turnkey/crypto, loaded on first use: it is heavy to load (it brings X.509 and CBOR code too), and
// only verify_otp with an encrypted bundle and otp_auth need it.
let library: Promise<typeof import('@turnkey/crypto')> | undefined;

export function turnkeyCrypto(): Promise<typeof import('@turnkey/crypto')> {
  library ??= import('@turnkey/crypto');
  return library;
}
