// Every error a client can receive: its reason, HTTP status, gRPC code and wire shape.
// Code anywhere throws a SignetError; the HTTP layer renders it and never leaks a stack trace.
import type { ApiKeyKind } from './wire/credentialKind.ts';

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
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/**
 * Why a stamp was refused, for operators (the signet_stamp_failures_total metric and the log): a
 * fixed set, so it never carries request data and keeps the metric's label values bounded. It is
 * not sent: the client reads the answer's reason (REASONS), which follows from it.
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

/** The gRPC code of each HTTP status an error answer has. */
const GRPC_CODE_OF_STATUS = {
  400: GrpcCode.INVALID_ARGUMENT,
  401: GrpcCode.UNAUTHENTICATED,
  403: GrpcCode.PERMISSION_DENIED,
  404: GrpcCode.NOT_FOUND,
  408: GrpcCode.DEADLINE_EXCEEDED,
  413: GrpcCode.INVALID_ARGUMENT,
  415: GrpcCode.INVALID_ARGUMENT,
  429: GrpcCode.RESOURCE_EXHAUSTED,
  431: GrpcCode.INVALID_ARGUMENT,
  500: GrpcCode.INTERNAL,
  501: GrpcCode.UNIMPLEMENTED,
  503: GrpcCode.UNAVAILABLE,
} as const;

interface ReasonEntry {
  status: keyof typeof GRPC_CODE_OF_STATUS;
  /** One line for the API docs: when a client receives it. */
  meaning: string;
}

/**
 * The reasons an error answer gives, one per cause a client may act on differently. Each answer
 * carries its reason as a TurnkeyErrorDetail's turnkeyErrorCode; the names are stable (a client
 * branches on them), so a reason is added, never renamed. The OpenAPI document and docs/api.md are
 * written from this table.
 */
export const REASONS = {
  MALFORMED_REQUEST: {
    status: 400,
    meaning: 'The request could not be read: malformed HTTP, an undecodable URL, or a body that is empty, not UTF-8, not JSON or not a JSON object',
  },
  INVALID_REQUEST: {
    status: 400,
    meaning: 'A schema or rule violation, an unknown field or the wrong type; a BadRequest detail names each field',
  },
  CONCURRENT_CHANGE: {
    status: 400,
    meaning: 'A concurrent request changed what this one depends on; nothing was stored, submit again',
  },
  PUBLIC_KEY_TAKEN: {
    status: 400,
    meaning:
      'The public key already names a credential of the organization, of its parent or of one of their sub-organizations (revoked ones too): one public key is one principal; a BadRequest detail names each field',
  },
  OIDC_TOKEN_REFUSED: {
    status: 400,
    meaning:
      'An OpenID Connect id token was refused: not a JWT, an issuer not in SIGNET_OIDC_ISSUERS, a bad signature, expired, another audience or a nonce of another key; the message names the check and a BadRequest detail the field',
  },
  OAUTH_PROVIDER_TAKEN: {
    status: 400,
    meaning: "The id token's identity (issuer and subject) is already bound to a user of the organization: one identity belongs to one user; a BadRequest detail names each field",
  },
  INVALID_OTP_CODE: { status: 400, meaning: 'The OTP code is not the one sent; the message says how many attempts are left' },
  OTP_EXPIRED: { status: 400, meaning: 'The OTP expired; request a new code' },
  OTP_ALREADY_USED: { status: 400, meaning: 'The OTP was already used; request a new code' },
  OTP_ATTEMPTS_EXHAUSTED: { status: 400, meaning: 'Too many wrong codes for this OTP; request a new code' },
  STAMP_MISSING: { status: 401, meaning: 'The request has no stamp header' },
  STAMP_MALFORMED: {
    status: 401,
    meaning: 'The stamp cannot be read: not base64url JSON, a missing field, a public key or signature of the wrong form',
  },
  BAD_SIGNATURE: { status: 401, meaning: 'The stamp signature does not verify over the request body' },
  UNKNOWN_CREDENTIAL: { status: 401, meaning: 'No such API key, passkey or usable verification token is registered' },
  CREDENTIAL_REVOKED: { status: 401, meaning: 'The API key or passkey was revoked' },
  CREDENTIAL_EXPIRED: { status: 401, meaning: 'The API key expired' },
  SESSION_EXPIRED: {
    status: 401,
    meaning: 'The session key (of otp_login) or otp_auth or email_auth key expired or was revoked, or a read-only session (X-Session) expired or its user was removed; log in again',
  },
  TIMESTAMP_STALE: { status: 401, meaning: "timestampMs is too far from the server's clock; stamp a fresh request" },
  STAMP_REPLAYED: {
    status: 401,
    meaning: "The passkey assertion was already used (its signature counter did not grow); stamp a new request",
  },
  WEBAUTHN_REJECTED: {
    status: 401,
    meaning: 'The passkey assertion was refused: its type, challenge, origin, relying party, user presence or data',
  },
  VERIFICATION_TOKEN_USED: { status: 401, meaning: 'The verification token of an attested stamp was already used to log in' },
  VERIFICATION_TOKEN_EXPIRED: { status: 401, meaning: 'The verification token of an attested stamp expired' },
  ADMIN_TOKEN_INVALID: { status: 401, meaning: 'The admin API was called without the right bearer token' },
  WRONG_ORGANIZATION: { status: 403, meaning: 'A valid credential of another organization' },
  PARENT_MAY_NOT_SUBMIT: {
    status: 403,
    meaning: "A parent organization's credential submitted an activity other than the login activities in a sub-organization",
  },
  READ_ONLY_SESSION: {
    status: 403,
    meaning: 'An activity (or a vote) sent with a read-only session (X-Session) and no stamp: a read-only session authenticates queries only',
  },
  REQUEST_NOT_AUTHORIZED: {
    status: 403,
    meaning: "The organization's root quorum and policies do not allow the activity (or the vote); nothing was stored",
  },
  ADDRESS_NOT_ALLOWED: {
    status: 403,
    meaning: 'The client address may not use this route (SIGNET_ADMIN_HOST, SIGNET_METRICS_HOST)',
  },
  ORIGIN_NOT_ALLOWED: { status: 403, meaning: 'A CORS preflight from an origin not in SIGNET_CORS_ORIGINS' },
  AUTH_PROXY_ORIGIN_NOT_ALLOWED: {
    status: 403,
    meaning: "An auth proxy route called from a page whose origin the configuration (X-Auth-Proxy-Config-ID) does not allow; no CORS headers",
  },
  AUTH_PROXY_METHOD_DISABLED: { status: 403, meaning: 'An auth proxy route for a sign-up or login method the configuration does not enable' },
  ROUTE_NOT_FOUND: { status: 404, meaning: 'No route or file at this method and path' },
  ORGANIZATION_NOT_FOUND: { status: 404, meaning: 'No such organization' },
  ORGANIZATION_DELETED: {
    status: 404,
    meaning: 'The sub-organization was deleted: its activities stay readable, nothing more can be submitted there',
  },
  USER_NOT_FOUND: { status: 404, meaning: 'No such user in the organization, or it was removed' },
  API_KEY_NOT_FOUND: { status: 404, meaning: 'No such API key in the organization' },
  OAUTH_PROVIDER_NOT_FOUND: { status: 404, meaning: 'No such OAuth provider of the user in the organization' },
  AUTHENTICATOR_NOT_FOUND: { status: 404, meaning: 'No such authenticator (passkey) in the organization' },
  ACTIVITY_NOT_FOUND: { status: 404, meaning: 'No such activity in the organization' },
  POLICY_NOT_FOUND: { status: 404, meaning: 'No such policy in the organization' },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, meaning: 'No such webhook endpoint in the organization' },
  USER_TAG_NOT_FOUND: { status: 404, meaning: 'No such user tag in the organization' },
  OTP_NOT_FOUND: { status: 404, meaning: "No OTP with this id in the organization (another organization's too)" },
  SMART_CONTRACT_INTERFACE_NOT_FOUND: { status: 404, meaning: 'No such smart contract interface in the organization' },
  WALLET_NOT_FOUND: { status: 404, meaning: 'No such wallet in the organization' },
  WALLET_ACCOUNT_NOT_FOUND: { status: 404, meaning: 'No such account in the wallet' },
  PRIVATE_KEY_NOT_FOUND: { status: 404, meaning: 'No such private key in the organization' },
  EMAIL_TEMPLATE_NOT_FOUND: { status: 404, meaning: 'No such email template in the organization' },
  AUTH_PROXY_CONFIG_NOT_FOUND: { status: 404, meaning: 'No auth proxy configuration with the id of X-Auth-Proxy-Config-ID (or the admin route\'s path)' },
  SENDER_DOMAIN_NOT_FOUND: { status: 404, meaning: 'No such sender domain in the organization' },
  REQUEST_TIMEOUT: {
    status: 408,
    meaning: 'The whole request did not arrive within SIGNET_REQUEST_TIMEOUT_MS; the connection is closed',
  },
  BODY_TOO_LARGE: { status: 413, meaning: 'The body is over 1 MiB; the connection is closed' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'Content-Type is not application/json' },
  TOO_MANY_AUTH_FAILURES: {
    status: 429,
    meaning: 'Too many failed authentications from this client address (SIGNET_AUTH_FAILURE_LIMIT); Retry-After says when to retry',
  },
  OTP_RATE_LIMITED: {
    status: 429,
    meaning: 'An OTP rate limit (per userIdentifier, phone number or email address: SIGNET_RATE_LIMIT_*); no OTP was created, Retry-After says when to retry',
  },
  AUTH_PROXY_RATE_LIMITED: {
    status: 429,
    meaning: 'Too many auth proxy requests from this client address, or for this contact; Retry-After says when to retry',
  },
  HEADERS_TOO_LARGE: { status: 431, meaning: 'The request headers are over 16 KiB; the connection is closed' },
  INTERNAL: { status: 500, meaning: 'Server fault; nothing was stored, the request can be retried' },
  NOT_IMPLEMENTED: { status: 501, meaning: 'A route Signet declares but does not serve yet; the message says what it waits for' },
  DATABASE_UNAVAILABLE: {
    status: 503,
    meaning: 'The database is unavailable or did not answer in time; nothing was stored, retry later with the same body',
  },
  AUTHORITY_CHANGING: {
    status: 503,
    meaning: "The organization's root quorum or policies kept changing while the activity was decided; nothing was stored, submit again",
  },
  OIDC_ISSUER_UNAVAILABLE: {
    status: 503,
    meaning: "The keys of the id token's issuer could not be fetched (its discovery document or JWKS); nothing was stored, retry later",
  },
  SHUTTING_DOWN: { status: 503, meaning: 'The server is shutting down; the connection is closed, retry on another instance' },
} as const satisfies Record<string, ReasonEntry>;

export type Reason = keyof typeof REASONS;

/** The gRPC code a reason is answered with: its status's. */
export const grpcCodeOf = (reason: Reason): number => GRPC_CODE_OF_STATUS[REASONS[reason].status];

/** The reasons with their HTTP status `status`, in the table's order. */
export const reasonsOfStatus = (status: number): Reason[] => (Object.keys(REASONS) as Reason[]).filter((reason) => REASONS[reason].status === status);

/** The detail that carries the reason, as the ecosystem's errors carry theirs. */
export const TURNKEY_ERROR_DETAIL_TYPE = 'type.googleapis.com/errors.v1.TurnkeyErrorDetail';

/** The reason each stamp failure is answered with (a credential's kind may make it more precise). */
const STAMP_FAILURE_ANSWER: Record<StampFailureReason, Reason> = {
  missing: 'STAMP_MISSING',
  malformed: 'STAMP_MALFORMED',
  bad_signature: 'BAD_SIGNATURE',
  unknown_credential: 'UNKNOWN_CREDENTIAL',
  revoked: 'CREDENTIAL_REVOKED',
  expired: 'CREDENTIAL_EXPIRED',
  replayed: 'STAMP_REPLAYED',
  stale_timestamp: 'TIMESTAMP_STALE',
  wrong_organization: 'WRONG_ORGANIZATION',
  webauthn_type: 'WEBAUTHN_REJECTED',
  webauthn_challenge: 'WEBAUTHN_REJECTED',
  webauthn_origin: 'WEBAUTHN_REJECTED',
  webauthn_rp_id: 'WEBAUTHN_REJECTED',
  webauthn_user_not_present: 'WEBAUTHN_REJECTED',
  webauthn_cross_origin: 'WEBAUTHN_REJECTED',
  webauthn_rejected: 'WEBAUTHN_REJECTED',
};

export interface SignetErrorOptions {
  fieldViolations?: FieldViolation[];
  /** Seconds a client should wait before retrying (sent as Retry-After). */
  retryAfterSeconds?: number;
  /** Set on 401/403 answers to a stamp: which check refused it. */
  stampFailure?: StampFailureReason;
  /** Only for a refusal of the HTTP framework whose own 4xx status is passed on; otherwise the reason's. */
  status?: number;
}

export class SignetError extends Error {
  override name = 'SignetError';
  readonly status: number;
  readonly code: number;
  readonly fieldViolations: FieldViolation[];
  readonly retryAfterSeconds?: number;
  readonly stampFailure?: StampFailureReason;

  constructor(
    /** Why, for a client to branch on: sent as the TurnkeyErrorDetail's turnkeyErrorCode. */
    readonly reason: Reason,
    message: string,
    options: SignetErrorOptions = {},
  ) {
    // A refusal of the client's request (4xx) is answered, not debugged: its stack is not captured,
    // which costs more than the rest of the error (activities plan their refusals before they know
    // whether one is needed: store/effects.ts's check). A 5xx keeps its stack for the log.
    const status = options.status ?? REASONS[reason].status;
    const stackTraceLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.status = status;
    this.code = grpcCodeOf(reason);
    this.fieldViolations = options.fieldViolations ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.stampFailure = options.stampFailure;
  }

  toJSON(): { code: number; message: string; details: unknown[] } {
    const details: unknown[] =
      this.fieldViolations.length > 0
        ? [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: this.fieldViolations }]
        : [];
    details.push({ '@type': TURNKEY_ERROR_DETAIL_TYPE, turnkeyErrorCode: this.reason });
    return { code: this.code, message: this.message, details };
  }
}

/** The reasons answered with status S: a factory of one status takes only those. */
type ReasonOfStatus<S extends number> = { [R in Reason]: (typeof REASONS)[R]['status'] extends S ? R : never }[Reason];

export const invalidArgument = (message: string, fieldViolations: FieldViolation[] = []) =>
  new SignetError('INVALID_REQUEST', message, { fieldViolations });

/** 400: a concurrent request changed what this one depends on; nothing was stored. */
export const concurrentChange = (message: string) => new SignetError('CONCURRENT_CHANGE', message);

/** 400: the request could not be read at all (HTTP, URL, body that is no JSON object). */
export const malformedRequest = (message: string) => new SignetError('MALFORMED_REQUEST', message);

/** One bad field: the message repeats the field so a client that only logs `message` still knows. */
export const invalidField = (field: string, description: string, reason: ReasonOfStatus<400> = 'INVALID_REQUEST') =>
  new SignetError(reason, `${field}: ${description}`, { fieldViolations: [{ field, description }] });

/** A refused stamp: `stampFailure` says which check refused it (for operators); the reason follows from it unless given. */
export const unauthenticated = (message: string, stampFailure: StampFailureReason, reason: Reason = STAMP_FAILURE_ANSWER[stampFailure]) =>
  new SignetError(reason, message, { stampFailure });

/** 403. Give `stampFailure` when a valid stamp was refused for the organization it names. */
export const permissionDenied = (reason: ReasonOfStatus<403>, message: string, stampFailure?: StampFailureReason) =>
  new SignetError(reason, message, { stampFailure });

/** 403: the organization's root quorum and policies do not allow the activity; nothing was stored. */
export const requestNotAuthorized = (message: string) => new SignetError('REQUEST_NOT_AUTHORIZED', message);

export const notFound = (reason: ReasonOfStatus<404>, message: string) => new SignetError(reason, message);

export const payloadTooLarge = (limitBytes: number) =>
  new SignetError('BODY_TOO_LARGE', `request body is larger than the limit of ${limitBytes} bytes`);

export const unsupportedMediaType = (got: string | undefined) =>
  new SignetError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be application/json${got ? `, got "${got}"` : ''}`);

export const resourceExhausted = (reason: ReasonOfStatus<429>, message: string, retryAfterSeconds: number) =>
  new SignetError(reason, message, { retryAfterSeconds });

export const internal = () => new SignetError('INTERNAL', 'internal error; nothing was stored, the request can be retried');

export const unavailable = (message = 'the database is unavailable; nothing was stored, retry later', reason: ReasonOfStatus<503> = 'DATABASE_UNAVAILABLE') =>
  new SignetError(reason, message);

// Refusals of a credential that verified but may not be used: one wording, whether the lookup before
// the statement or the statement itself found it.

// A session key's refusals, and those of a key of otp_auth (which a browser client holds as its
// session), give the reason SESSION_EXPIRED and end with the words @turnkey/core looks for to tell its app the session expired (it
// matches "Unauthenticated desc = expired api key publicKey" in the message).
const LOGIN_ENDED = (publicKey: string, login: string) => `log in again with ${login} (Unauthenticated desc = expired api key publicKey ${publicKey})`;
const OTP_AUTH_LOGIN = 'a new code (init_otp_auth, then otp_auth)';
const EMAIL_AUTH_LOGIN = 'a new email (email_auth)';
const RECOVERY = 'ask for a new recovery email (init_user_email_recovery)';

export const apiKeyRevoked = (publicKey: string, revokedAt: Date, kind: ApiKeyKind = 'api_key') => {
  const at = revokedAt.toISOString();
  if (kind === 'session') return unauthenticated(`session ended: the session key ${publicKey} was revoked at ${at}; ${LOGIN_ENDED(publicKey, 'otp_login')}`, 'revoked', 'SESSION_EXPIRED');
  if (kind === 'otp_auth') return unauthenticated(`API key revoked: the otp_auth key ${publicKey} was revoked at ${at}; ${LOGIN_ENDED(publicKey, OTP_AUTH_LOGIN)}`, 'revoked', 'SESSION_EXPIRED');
  if (kind === 'recovery') return unauthenticated(`API key revoked: the recovery key ${publicKey} was used or revoked at ${at}; ${RECOVERY}`, 'revoked');
  if (kind === 'email_auth') return unauthenticated(`API key revoked: the email_auth key ${publicKey} was revoked at ${at}; ${LOGIN_ENDED(publicKey, EMAIL_AUTH_LOGIN)}`, 'revoked', 'SESSION_EXPIRED');
  return unauthenticated(`API key revoked: the API key ${publicKey} was revoked at ${at}; create a new API key`, 'revoked');
};

export const apiKeyExpired = (publicKey: string, expiresAt: Date, kind: ApiKeyKind = 'api_key') => {
  const at = expiresAt.toISOString();
  if (kind === 'session') return unauthenticated(`session expired: the session key ${publicKey} expired at ${at}; ${LOGIN_ENDED(publicKey, 'otp_login')}`, 'expired', 'SESSION_EXPIRED');
  if (kind === 'otp_auth') return unauthenticated(`API key expired: the otp_auth key ${publicKey} expired at ${at}; ${LOGIN_ENDED(publicKey, OTP_AUTH_LOGIN)}`, 'expired', 'SESSION_EXPIRED');
  if (kind === 'recovery') return unauthenticated(`API key expired: the recovery key ${publicKey} expired at ${at}; ${RECOVERY}`, 'expired');
  if (kind === 'email_auth') return unauthenticated(`API key expired: the email_auth key ${publicKey} expired at ${at}; ${LOGIN_ENDED(publicKey, EMAIL_AUTH_LOGIN)}`, 'expired', 'SESSION_EXPIRED');
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
  state: { revokedAt: Date | null; expiresAt?: Date | null; kind?: ApiKeyKind; verificationToken?: boolean; readOnlySession?: boolean },
  now: Date,
): SignetError {
  if (state.readOnlySession) {
    return state.revokedAt
      ? unauthenticated(`X-Session: the read-only session ended: its user was removed at ${state.revokedAt.toISOString()}`, 'revoked', 'SESSION_EXPIRED')
      : unauthenticated(
          `X-Session: the read-only session expired${state.expiresAt ? ` at ${state.expiresAt.toISOString()}` : ''}; create a new one with create_read_only_session`,
          'expired',
          'SESSION_EXPIRED',
        );
  }
  const webauthn = credential.scheme === 'SIGNATURE_SCHEME_WEBAUTHN';
  if (state.verificationToken) {
    return state.revokedAt
      ? unauthenticated(
          `X-Stamp-Attested: the verification token was already used to log in (at ${state.revokedAt.toISOString()}); verify a new code to log in again`,
          'replayed',
          'VERIFICATION_TOKEN_USED',
        )
      : unauthenticated('X-Stamp-Attested: the verification token has expired; verify a new code to log in again', 'expired', 'VERIFICATION_TOKEN_EXPIRED');
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

/** The reasons as the Markdown table of docs/api.md (a test holds the page to it). */
export function reasonTable(): string {
  const rows = (Object.keys(REASONS) as Reason[]).map((reason) => {
    const { status, meaning } = REASONS[reason];
    return `| \`${reason}\` | ${status} | ${grpcCodeOf(reason)} | ${meaning.replaceAll('|', '\\|')} |`;
  });
  return ['| turnkeyErrorCode | HTTP status | gRPC code | When |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** The database could not be reached, dropped the connection or did not answer in time: worth a retry, not a bug report. */
export class DatabaseUnavailable extends Error {
  override name = 'DatabaseUnavailable';
  constructor(
    message: string,
    /** A bound ran out (the database was silent or slow), rather than a refused or lost connection. */
    readonly timedOut: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
