// How an OIDC id token is refused: OidcTokenRefused names the check that failed (the caller answers
// 401 with its message); OidcIssuerUnavailable says the issuer's keys could not be had (not the
// token's fault: worth a retry later, so the caller answers 503, not 401).

/** The check that refused an id token. */
export type OidcCheck =
  /** Not a compact JWS of bounded size with a JSON header and claims. */
  | 'token'
  /** Its `alg` is not an asymmetric signature algorithm Signet accepts (`none` and HMAC never are). */
  | 'algorithm'
  /** Its `iss` is missing or not one of SIGNET_OIDC_ISSUERS. */
  | 'issuer'
  /** No key of the issuer's JWKS has its `kid` (after one refresh), or several fit and it names none. */
  | 'key'
  /** The signature does not verify with the issuer's key. */
  | 'signature'
  /** `exp` is missing or has passed. */
  | 'expiry'
  /** `iat` is missing or in the future. */
  | 'issued-at'
  /** `nbf` is in the future. */
  | 'not-before'
  /** `aud` is missing or malformed, or is not the audience the caller expects. */
  | 'audience'
  /** `sub` is missing or malformed. */
  | 'subject'
  /** `nonce` is missing or is not the SHA-256 of the session's public key. */
  | 'nonce';

export class OidcTokenRefused extends Error {
  override name = 'OidcTokenRefused';
  constructor(
    readonly check: OidcCheck,
    message: string,
  ) {
    super(`OIDC token refused (${check}): ${message}`);
  }
}

export class OidcIssuerUnavailable extends Error {
  override name = 'OidcIssuerUnavailable';
  constructor(
    readonly issuer: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`the keys of the OIDC issuer ${issuer} cannot be had: ${message}`, options);
  }
}
