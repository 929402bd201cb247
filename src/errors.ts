// Every error a client can receive: its HTTP status, gRPC code and wire shape.
// Code anywhere throws a SignetError; the HTTP layer renders it and never leaks a stack trace.
import type { ApiKeyKind } from './store/credentials.ts';

export interface FieldViolation {
  field: string;
  description: string;
}

export const GrpcCode = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/**
 * Why a stamp was refused, for operators (the signet_stamp_failures_total metric and the log): a
 * fixed set, so it never carries request data and keeps the metric's label values bounded. The
 * client reads the message instead; the reason is not sent.
 */
export const STAMP_FAILURE_REASONS = [
  'missing',
  'malformed',
  'bad_signature',
  'unknown_credential',
  'revoked',
  'expired',
  'replayed',
  'stale_timestamp',
  'wrong_organization',
  'webauthn_type',
  'webauthn_challenge',
  'webauthn_origin',
  'webauthn_rp_id',
  'webauthn_user_not_present',
  'webauthn_cross_origin',
  'webauthn_rejected',
] as const;

export type StampFailureReason = (typeof STAMP_FAILURE_REASONS)[number];

export class SignetError extends Error {
  override name = 'SignetError';
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly fieldViolations: FieldViolation[] = [],
    /** Seconds a client should wait before retrying (sent as Retry-After). */
    readonly retryAfterSeconds?: number,
    /** Set on 401/403 answers to a stamp: which check refused it. */
    readonly stampFailure?: StampFailureReason,
    /** The ecosystem's machine-readable error code, sent as a TurnkeyErrorDetail (e.g. REQUEST_NOT_AUTHORIZED). */
    readonly turnkeyErrorCode?: string,
  ) {
    super(message);
  }

  toJSON(): { code: number; message: string; details: unknown[] } {
    const details: unknown[] =
      this.fieldViolations.length > 0
        ? [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: this.fieldViolations }]
        : [];
    if (this.turnkeyErrorCode) details.push({ '@type': 'type.googleapis.com/errors.v1.TurnkeyErrorDetail', turnkeyErrorCode: this.turnkeyErrorCode });
    return { code: this.code, message: this.message, details };
  }
}

export const invalidArgument = (message: string, fieldViolations: FieldViolation[] = []) =>
  new SignetError(400, GrpcCode.INVALID_ARGUMENT, message, fieldViolations);

/** One bad field: the message repeats the field so a client that only logs `message` still knows. */
export const invalidField = (field: string, description: string) =>
  invalidArgument(`${field}: ${description}`, [{ field, description }]);

/** 401. Give `stampFailure` when a stamp was refused, so operators can count why. */
export const unauthenticated = (message: string, stampFailure?: StampFailureReason) =>
  new SignetError(401, GrpcCode.UNAUTHENTICATED, message, [], undefined, stampFailure);

/** 403. Give `stampFailure` when a valid stamp was refused for the organization it names. */
export const permissionDenied = (message: string, stampFailure?: StampFailureReason) =>
  new SignetError(403, GrpcCode.PERMISSION_DENIED, message, [], undefined, stampFailure);

/** 403: the organization's root quorum and policies do not allow the activity; nothing was stored. */
export const requestNotAuthorized = (message: string) =>
  new SignetError(403, GrpcCode.PERMISSION_DENIED, message, [], undefined, undefined, 'REQUEST_NOT_AUTHORIZED');

export const notFound = (message: string) => new SignetError(404, GrpcCode.NOT_FOUND, message);

export const payloadTooLarge = (limitBytes: number) =>
  new SignetError(413, GrpcCode.INVALID_ARGUMENT, `request body is larger than the limit of ${limitBytes} bytes`);

export const unsupportedMediaType = (got: string | undefined) =>
  new SignetError(
    415,
    GrpcCode.INVALID_ARGUMENT,
    `Content-Type must be application/json${got ? `, got "${got}"` : ''}`,
  );

export const resourceExhausted = (message: string, retryAfterSeconds: number) =>
  new SignetError(429, GrpcCode.RESOURCE_EXHAUSTED, message, [], retryAfterSeconds);

export const internal = () =>
  new SignetError(500, GrpcCode.INTERNAL, 'internal error; nothing was stored, the request can be retried');

export const unavailable = (message = 'the database is unavailable; nothing was stored, retry later') =>
  new SignetError(503, GrpcCode.UNAVAILABLE, message);

// Refusals of a credential that verified but may not be used: one wording, whether the lookup before
// the statement or the statement itself found it.

// A session key's refusals, and those of a key of otp_auth (which a browser client holds as its
// session), end with the words @turnkey/core looks for to tell its app the session expired (it
// matches "Unauthenticated desc = expired api key publicKey" in the message).
const LOGIN_ENDED = (publicKey: string, login: string) => `log in again with ${login} (Unauthenticated desc = expired api key publicKey ${publicKey})`;
const OTP_AUTH_LOGIN = 'a new code (init_otp_auth, then otp_auth)';

export const apiKeyRevoked = (publicKey: string, revokedAt: Date, kind: ApiKeyKind = 'api_key') => {
  const at = revokedAt.toISOString();
  if (kind === 'session') return unauthenticated(`session ended: the session key ${publicKey} was revoked at ${at}; ${LOGIN_ENDED(publicKey, 'otp_login')}`, 'revoked');
  if (kind === 'otp_auth') return unauthenticated(`API key revoked: the otp_auth key ${publicKey} was revoked at ${at}; ${LOGIN_ENDED(publicKey, OTP_AUTH_LOGIN)}`, 'revoked');
  return unauthenticated(`API key revoked: the API key ${publicKey} was revoked at ${at}; create a new API key`, 'revoked');
};

export const apiKeyExpired = (publicKey: string, expiresAt: Date, kind: ApiKeyKind = 'api_key') => {
  const at = expiresAt.toISOString();
  if (kind === 'session') return unauthenticated(`session expired: the session key ${publicKey} expired at ${at}; ${LOGIN_ENDED(publicKey, 'otp_login')}`, 'expired');
  if (kind === 'otp_auth') return unauthenticated(`API key expired: the otp_auth key ${publicKey} expired at ${at}; ${LOGIN_ENDED(publicKey, OTP_AUTH_LOGIN)}`, 'expired');
  return unauthenticated(`API key expired: the API key ${publicKey} expired at ${at}; create a new API key`, 'expired');
};

export const authenticatorRevoked = (credentialId: string, revokedAt: Date) =>
  unauthenticated(
    `WebAuthn credential revoked: the authenticator ${credentialId} was revoked at ${revokedAt.toISOString()}; register a new passkey`,
    'revoked',
  );

/** Why a statement refused a credential that verified: revoked, expired, or gone since it was looked up. */
export function credentialRefused(
  credential: { scheme: string; publicKey: string; credentialId?: string },
  state: { revokedAt: Date | null; expiresAt?: Date | null; kind?: ApiKeyKind; verificationToken?: boolean },
  now: Date,
): SignetError {
  const webauthn = credential.scheme === 'SIGNATURE_SCHEME_WEBAUTHN';
  if (state.verificationToken) {
    return state.revokedAt
      ? unauthenticated(
          `X-Stamp-Attested: the verification token was already used to log in (at ${state.revokedAt.toISOString()}); verify a new code to log in again`,
          'replayed',
        )
      : unauthenticated('X-Stamp-Attested: the verification token has expired; verify a new code to log in again', 'expired');
  }
  if (state.revokedAt) {
    return webauthn ? authenticatorRevoked(credential.credentialId ?? '', state.revokedAt) : apiKeyRevoked(credential.publicKey, state.revokedAt, state.kind);
  }
  if (state.expiresAt && state.expiresAt.getTime() <= now.getTime()) return apiKeyExpired(credential.publicKey, state.expiresAt, state.kind);
  return unauthenticated(
    `unknown ${webauthn ? 'WebAuthn credential' : 'API key'}: it is no longer registered; stamp with a registered credential`,
    'unknown_credential',
  );
}
