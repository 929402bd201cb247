// The keywords each kind of expression may use, their static types, and the shapes of the values the
// evaluator binds to them (the User, Credential and Activity structs).

export type Type =
  | { readonly kind: 'bool' }
  | { readonly kind: 'int' }
  | { readonly kind: 'string' }
  /** Known only at evaluation: activity.params, whose shape depends on the activity type. */
  | { readonly kind: 'dynamic' }
  /** The element of `[]`, which agrees with every type. */
  | { readonly kind: 'nothing' }
  | { readonly kind: 'list'; readonly of: Type }
  | { readonly kind: 'struct'; readonly name: string; readonly fields: ReadonlyMap<string, Type> };

export const BOOL: Type = { kind: 'bool' };
export const INT: Type = { kind: 'int' };
export const STRING: Type = { kind: 'string' };
export const DYNAMIC: Type = { kind: 'dynamic' };
export const NOTHING: Type = { kind: 'nothing' };
export const listOf = (of: Type): Type => ({ kind: 'list', of });
const struct = (name: string, fields: Record<string, Type>): Type => ({ kind: 'struct', name, fields: new Map(Object.entries(fields)) });

/** `condition` expressions describe the activity; `consensus` expressions describe who approved it. */
export type ExpressionKind = 'condition' | 'consensus';

export const CREDENTIAL_TYPES = [
  'CREDENTIAL_TYPE_API_KEY_P256',
  'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR',
  'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256',
  'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256',
] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

/** A user as a consensus expression sees it (an element of `approvers`). */
export interface PolicyUser {
  readonly id: string;
  readonly tags: readonly string[];
  readonly email: string;
  readonly name: string;
}

/** A credential that stamped an approval, as a consensus expression sees it (an element of `credentials`). */
export interface PolicyCredential {
  readonly id: string;
  readonly user_id: string;
  readonly type: CredentialType;
  readonly public_key: string;
  /** The WebAuthn credential id of an authenticator; '' for API keys. */
  readonly credential_id: string;
}

/** JSON-like values, as activity.params holds them; an int beyond 2^53 - 1 in size as a bigint (integers.ts). */
export type PolicyValue = null | boolean | number | bigint | string | readonly PolicyValue[] | { readonly [field: string]: PolicyValue };

/** The `activity` keyword of a condition expression. */
export interface PolicyActivity {
  readonly type: string;
  readonly kind: string;
  /** Absent for an activity type with no entry in activityResources.ts: reading it is an evaluation error. */
  readonly resource?: string;
  readonly action?: string;
  readonly params: { readonly [field: string]: PolicyValue };
}

const USER = struct('User', { id: STRING, tags: listOf(STRING), email: STRING, name: STRING });
const CREDENTIAL = struct('Credential', { id: STRING, user_id: STRING, type: STRING, public_key: STRING, credential_id: STRING });
const ACTIVITY = struct('Activity', { type: STRING, kind: STRING, resource: STRING, action: STRING, params: DYNAMIC });

export const KEYWORDS: Readonly<Record<ExpressionKind, ReadonlyMap<string, Type>>> = {
  condition: new Map([['activity', ACTIVITY]]),
  consensus: new Map([
    ['approvers', listOf(USER)],
    ['credentials', listOf(CREDENTIAL)],
  ]),
};

/** What the keywords of an expression are bound to when it is evaluated. */
export type Bindings =
  | { readonly activity: PolicyActivity }
  | { readonly approvers: readonly PolicyUser[]; readonly credentials: readonly PolicyCredential[] };

export function typeName(type: Type): string {
  switch (type.kind) {
    case 'dynamic':
      return 'any';
    case 'nothing':
      return 'nothing';
    case 'list':
      return `list<${typeName(type.of)}>`;
    case 'struct':
      return type.name;
    default:
      return type.kind;
  }
}
