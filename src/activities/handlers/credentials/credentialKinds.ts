// The kinds of credential a user signs in with, API keys and passkeys, each as one strategy that every
// activity registering or revoking them uses (create_users, create_api_keys, create_authenticators,
// delete_api_keys, delete_authenticators): its parameter's schema and parsing into the row the store
// writes, the value taken unique (a public key in the organization's tree, a credential id anywhere)
// and the refusal when it is taken, the bound per user, the row's write and the revocation.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import type { NewApiKey } from '../../../store/apiKeys.ts';
import type { NewAuthenticator } from '../../../store/authenticators.ts';
import { check, lock, take, write, type Effect } from '../../../store/effects.ts';
import { name, text } from '../../wire/parameters.ts';
import type { ExecutionContext } from '../../handler.ts';
import { apiKeyParameter, newApiKey, publicKeysTaken, RACED, refusedFields } from './apiKeyParameters.ts';
import { verifiedRegistration } from './passkeyRegistration.ts';

/** Keys, and as many passkeys, one request registers for a user (each passkey's attestation is verified first). */
export const MAX_CREDENTIALS = 10;
/** Live API keys a user may have of each lifetime: that do not expire, and that do (session keys apart). */
export const MAX_API_KEYS_PER_USER = 10;
/** Passkeys a user may have that are not revoked (create_users registers as many at most). */
export const MAX_AUTHENTICATORS_PER_USER = MAX_CREDENTIALS;
const MAX_CHALLENGE_LENGTH = 1024;

/** One passkey to register, as @turnkey/http sends it. */
export const authenticator = z
  .strictObject({
    authenticatorName: name.describe('Name of the passkey; not blank'),
    /** base64url, the challenge the registration ceremony was started with (createUserPasskey's encodedChallenge). */
    challenge: text(MAX_CHALLENGE_LENGTH, (v) => (/^[A-Za-z0-9_-]+={0,2}$/.test(v) ? undefined : 'must be base64url, the challenge the passkey was created with')).meta({
      pattern: '^[A-Za-z0-9_-]+={0,2}$',
      description: "The challenge the passkey was created with, base64url (createUserPasskey's encodedChallenge)",
    }),
    attestation: z
      .record(z.string(), z.unknown(), { error: 'must be an object: the attestation createUserPasskey() returned' })
      .describe(
        'What createUserPasskey or getWebAuthnAttestation returns ({credentialId, clientDataJson, attestationObject, transports}), or the W3C JSON of PublicKeyCredential.toJSON(); verified against SIGNET_WEBAUTHN_RP_ID and SIGNET_WEBAUTHN_ORIGINS',
      ),
  })
  .describe('A passkey (WebAuthn authenticator) of the user');

export type AuthenticatorParameter = z.output<typeof authenticator>;

/**
 * The credentials of one kind an activity registers: their rows, and the fields of the request
 * each unique value came from (to name them when the store finds the value taken).
 */
export interface Registrations<Row> {
  rows: Row[];
  /** Each unique value (a compressed public key, a credential id) with the fields that give it. */
  fields: Map<string, string[]>;
}

/** A kind of credential: what registering and revoking one means in an activity's plan. */
export interface CredentialKind<Schema extends z.ZodType, Row extends { id: string }, Parameter = z.output<Schema>> {
  /** The schema of one parameter of the kind, in the ecosystem's shape. */
  parameter: Schema;
  /** The field of a parameter that gives its unique value, named in a refusal. */
  uniqueField: string;
  /** The row of `parameter` for the user, with a new id; a 400 naming `field` (the parameter) when it cannot be registered. */
  row(context: Pick<ExecutionContext, 'now' | 'config'>, parameter: Parameter, userId: string, field: string): Promise<Row>;
  /** The value the row takes unique. */
  unique(row: Row): string;
  /** The refusal of a value given twice in a request (the first field given); none when the schema refuses it first. */
  givenTwice?(field: string, first: string): Error;
  /** The take of the unique values; its refusal names their fields, or `fallbackField` when none can be named. */
  take(organizationId: string, fields: Map<string, string[]>, fallbackField: string): Effect;
  /** What must hold for the user to have these rows too (`at`: the request's field of the parameters). */
  bounds(userId: string, rows: readonly Row[], now: Date, at: string): Effect[];
  /** The rows written. */
  write(organizationId: string, rows: Row[], now: Date): Effect;
  /** The revocation of credentials of the user, each the user's and not revoked (`field(i)` names the i-th). */
  revoke(organizationId: string, userId: string, ids: string[], now: Date, field: (index: number) => string): Effect[];
}

/** The refusal (a 404 of `reason`) of a revocation naming a credential the user does not have, or has revoked already. */
const revokeRefusal = (reason: 'API_KEY_NOT_FOUND' | 'AUTHENTICATOR_NOT_FOUND', what: string) => (field: string, organizationId: string, userId: string, id: string) =>
  notFound(reason, `${field}: no ${what} ${id} of user ${userId} in organization ${organizationId} that is not revoked`);

const apiKeyNotFound = revokeRefusal('API_KEY_NOT_FOUND', 'API key');

export const apiKeys: CredentialKind<typeof apiKeyParameter, NewApiKey> = {
  parameter: apiKeyParameter,
  uniqueField: 'publicKey',
  row: async (context, parameter, userId) => newApiKey(parameter, userId, context.now),
  unique: (row) => row.publicKey,
  take: (organizationId, fields, fallbackField) => take('apiKeys', [organizationId, [...fields.keys()]], (detail) => publicKeysTaken(detail, fields, fallbackField)),
  // Each lifetime is bounded apart, named by its first key in the request.
  bounds: (userId, rows, now, at) =>
    [false, true].flatMap((expiring) => {
      const adding = rows.filter((row) => (row.expiresAt !== null) === expiring).length;
      const field = `${at}[${rows.findIndex((row) => (row.expiresAt !== null) === expiring)}]`;
      const what = expiring ? 'that expire' : 'that do not expire';
      return adding === 0
        ? []
        : [
            check(
              'userApiKeysWithin',
              [userId, now, expiring, adding, MAX_API_KEYS_PER_USER],
              invalidField(field, `the user would have more than ${MAX_API_KEYS_PER_USER} live API keys ${what} (${adding} in this request); delete some first (delete_api_keys)`),
            ),
          ];
    }),
  write: (organizationId, rows, now) => write('insertApiKeys', organizationId, rows, now),
  revoke: (organizationId, userId, ids, now, field) => [
    ...ids.map((id, i) => check('apiKeyOfUserNotRevoked', [organizationId, userId, id], apiKeyNotFound(field(i), organizationId, userId, id))),
    write('revokeApiKeys', { organizationId, userId, ids, now }),
  ],
};

const passkeyNotFound = revokeRefusal('AUTHENTICATOR_NOT_FOUND', 'passkey');

export const passkeys: CredentialKind<typeof authenticator, NewAuthenticator> = {
  parameter: authenticator,
  uniqueField: 'attestation',
  row: async (context, parameter, userId, field) => {
    const verified = await verifiedRegistration(parameter.attestation, {
      expectedChallenge: parameter.challenge,
      origins: context.config.webauthnOrigins,
      rpId: context.config.webauthnRpId,
      field: `${field}.attestation`,
    });
    return { id: randomUUID(), userId, name: parameter.authenticatorName, ...verified };
  },
  unique: (row) => row.credentialId,
  givenTwice: (field, first) => invalidField(field, `registers the same credential as ${first}; each passkey may appear once`),
  take: (_organizationId, fields, fallbackField) =>
    take('credentialIds', [[...fields.keys()]], (detail) => passkeysTaken(detail, fields, fallbackField)),
  bounds: (userId, rows, _now, at) => [
    check(
      'userAuthenticatorsWithin',
      [userId, rows.length, MAX_AUTHENTICATORS_PER_USER],
      invalidField(at, `the user would have more than ${MAX_AUTHENTICATORS_PER_USER} passkeys (${rows.length} in this request); delete some first (delete_authenticators)`),
    ),
  ],
  write: (organizationId, rows, now) => write('insertAuthenticators', organizationId, rows, now),
  revoke: (organizationId, userId, ids, now, field) => [
    ...ids.map((id, i) => check('authenticatorOfUserNotRevoked', [organizationId, userId, id], passkeyNotFound(field(i), organizationId, userId, id))),
    write('revokeAuthenticators', { organizationId, userId, ids, now }),
  ],
};

/** The refusal when some passkeys are registered already (the detail of the credentialIds take: the ids taken), naming their fields. */
export function passkeysTaken(detail: unknown, fields: Map<string, string[]>, fallbackField: string) {
  const taken = (Array.isArray(detail) ? detail : []) as string[];
  return refusedFields(
    taken.flatMap((id) => (fields.get(id) ?? []).map((field) => ({ field, description: 'this credential is already registered' }))),
    fallbackField,
    `a passkey ${RACED}`,
  );
}

/** Registrations with none yet, for register to add to. */
export function noRegistrations<Row>(): Registrations<Row> {
  return { rows: [], fields: new Map() };
}

/**
 * Adds the rows of `parameters` (the kind's, for the user) to `into`, in order; `at(j)` names the
 * j-th parameter in the request. A value given twice is refused when the kind refuses it.
 */
export async function register<Schema extends z.ZodType, Row extends { id: string }>(
  kind: CredentialKind<Schema, Row>,
  context: Pick<ExecutionContext, 'now' | 'config'>,
  parameters: ReadonlyArray<z.output<Schema>>,
  userId: string,
  at: (index: number) => string,
  into: Registrations<Row> = noRegistrations(),
): Promise<Registrations<Row>> {
  for (const [j, parameter] of parameters.entries()) {
    const row = await kind.row(context, parameter, userId, at(j));
    const field = `${at(j)}.${kind.uniqueField}`;
    const value = kind.unique(row);
    const given = into.fields.get(value) ?? [];
    if (given.length > 0 && kind.givenTwice) throw kind.givenTwice(field, given[0]!);
    into.fields.set(value, [...given, field]);
    into.rows.push(row);
  }
  return into;
}

/**
 * The effects registering credentials of one kind for an existing user of the organization (`at`:
 * the request's field of the parameters): the user active, within its bound, the values free, the
 * rows written, and the user's credentials locked first.
 */
export function registrationEffects<Schema extends z.ZodType, Row extends { id: string }>(
  kind: CredentialKind<Schema, Row>,
  context: Pick<ExecutionContext, 'organizationId' | 'now'>,
  userId: string,
  registered: Registrations<Row>,
  at: string,
): Effect[] {
  const { organizationId, now } = context;
  return [
    check('userActive', [organizationId, userId], notFound('USER_NOT_FOUND', `parameters.userId: no user ${userId} in organization ${organizationId} (or it was removed)`)),
    ...kind.bounds(userId, registered.rows, now, at),
    kind.take(organizationId, registered.fields, at),
    kind.write(organizationId, registered.rows, now),
    // Concurrent registrations for the user count each other's credentials: one waits for the other to commit.
    lock('userApiKeys', organizationId, userId),
  ];
}
