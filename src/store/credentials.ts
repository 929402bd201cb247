// The use of a credential inside a statement: every statement a stamped request runs re-checks, at
// its own moment, that the credential may still be used (an API key neither revoked nor expired, a
// passkey not revoked), so a revocation takes effect at once in every process, whatever the
// processes keep in memory.
import type { ApiKeyKind } from '../wire/credentialKind.ts';
import type { Queryable } from './db.ts';
import { run, sql, type Sql } from './sql.ts';
import { verificationTokenState, verificationTokenUsable } from './verificationTokens.ts';

/**
 * The credential a statement checks: an API key at the request's clock, a passkey (whose counter
 * was advanced when its assertion was verified), or the verification token of an attested stamp
 * (unexpired at the request's clock and unused; the login that uses it writes its use).
 */
export type CredentialUse =
  | { kind: 'apiKey'; apiKeyId: string; now: Date }
  | { kind: 'authenticator'; authenticatorId: string }
  | { kind: 'verificationToken'; tokenId: string; expiresAt: Date; now: Date }
  /** A read-only session (X-Session): its user, not removed, of its organization, not deleted, until it expires. */
  | { kind: 'readOnlySession'; organizationId: string; userId: string; expiresAt: Date; now: Date };

/** Why a credential was refused by the statement, as the store last saw it. */
export interface CredentialState {
  revokedAt: Date | null;
  /** API keys. */
  expiresAt?: Date | null;
  /** What made the API key: a session key (otp_login's) and a key of otp_auth are refused in their own words. */
  kind?: ApiKeyKind;
  /** An attested stamp's verification token: revokedAt is when it was used. */
  verificationToken?: boolean;
  /** A read-only session: revokedAt is when its user was removed (or its organization deleted). */
  readOnlySession?: boolean;
}

/** A statement part that yields a row when the key may still stamp at `now`: not revoked, not expired. */
export function apiKeyUsable(id: string, now: Date): Sql {
  // A deleted sub-organization's keys are revoked by its deletion; read here too, a key registered
  // by a write that raced with the deletion stops as well.
  return sql`SELECT k.id FROM api_keys k JOIN organizations o ON o.id = k.organization_id
              WHERE k.id = ${id}::uuid AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ${now}::timestamptz)
                AND o.deleted_at IS NULL`;
}

/** The key's revocation (or its organization's deletion), expiry and kind as JSON ({revokedAt, expiresAt, kind}), to say why it was refused. */
export function apiKeyState(id: string): Sql {
  return sql`(SELECT json_build_object('revokedAt', coalesce(k.revoked_at, o.deleted_at), 'expiresAt', k.expires_at, 'kind', k.kind)
                FROM api_keys k JOIN organizations o ON o.id = k.organization_id WHERE k.id = ${id}::uuid)`;
}

/** A statement part that yields a row when the authenticator may still stamp: not revoked. */
export function authenticatorUsable(id: string): Sql {
  // As for API keys: a passkey registered by a write that raced with its sub-organization's deletion stops too.
  return sql`SELECT a.id FROM authenticators a JOIN organizations o ON o.id = a.organization_id
              WHERE a.id = ${id}::uuid AND a.revoked_at IS NULL AND o.deleted_at IS NULL`;
}

/** The authenticator's revocation as JSON ({revokedAt}), to say why it was refused. */
export function authenticatorState(id: string): Sql {
  return sql`(SELECT json_build_object('revokedAt', coalesce(a.revoked_at, o.deleted_at))
                FROM authenticators a JOIN organizations o ON o.id = a.organization_id WHERE a.id = ${id}::uuid)`;
}

/** A statement part that yields a row while a read-only session's user is there, in its organization, and the session unexpired. */
export function readOnlySessionUsable(session: { organizationId: string; userId: string; expiresAt: Date; now: Date }): Sql {
  return sql`SELECT u.id FROM users u JOIN organizations o ON o.id = u.organization_id
              WHERE u.id = ${session.userId}::uuid AND u.organization_id = ${session.organizationId}::uuid
                AND u.removed_at IS NULL AND o.deleted_at IS NULL AND ${session.expiresAt}::timestamptz > ${session.now}::timestamptz`;
}

/** A read-only session's end as JSON ({revokedAt: its user's removal or its organization's deletion, expiresAt, kind}). */
export function readOnlySessionState(session: { organizationId: string; userId: string; expiresAt: Date }): Sql {
  return sql`json_build_object('revokedAt', (SELECT coalesce(u.removed_at, o.deleted_at) FROM users u JOIN organizations o ON o.id = u.organization_id
                                              WHERE u.id = ${session.userId}::uuid AND u.organization_id = ${session.organizationId}::uuid),
                               'expiresAt', ${session.expiresAt}::timestamptz, 'kind', 'readOnlySession')`;
}

/** A statement part yielding a row when the credential may be used. */
export function credentialUsable(use: CredentialUse): Sql {
  switch (use.kind) {
    case 'apiKey':
      return apiKeyUsable(use.apiKeyId, use.now);
    case 'authenticator':
      return authenticatorUsable(use.authenticatorId);
    case 'verificationToken':
      return verificationTokenUsable(use);
    case 'readOnlySession':
      return readOnlySessionUsable(use);
  }
}

/** An expression: the credential's state as JSON, read when the statement refused it. */
export function credentialState(use: CredentialUse): Sql {
  switch (use.kind) {
    case 'apiKey':
      return apiKeyState(use.apiKeyId);
    case 'authenticator':
      return authenticatorState(use.authenticatorId);
    case 'verificationToken':
      return verificationTokenState(use);
    case 'readOnlySession':
      return readOnlySessionState(use);
  }
}

export function parseCredentialState(json: unknown): CredentialState {
  const state = (json ?? {}) as { revokedAt?: string | null; expiresAt?: string | null; kind?: string };
  const date = (value: string | null | undefined) => (value ? new Date(value) : null);
  return {
    revokedAt: date(state.revokedAt),
    ...(state.expiresAt !== undefined ? { expiresAt: date(state.expiresAt) } : {}),
    ...(state.kind === 'session' || state.kind === 'otp_auth' || state.kind === 'email_auth' || state.kind === 'recovery' ? { kind: state.kind } : {}),
    ...(state.kind === 'verificationToken' ? { verificationToken: true } : {}),
    ...(state.kind === 'readOnlySession' ? { readOnlySession: true } : {}),
  };
}

/** A read on behalf of a credential: its rows, or the credential's state when it was refused. */
export interface CredentialedRows<T> {
  refused?: CredentialState;
  rows: T[];
}

/** The statement runWithCredential runs: `body`'s rows when the credential may be used, else one row saying why not. */
export function credentialedStatement(use: CredentialUse, body: Sql): Sql {
  return sql`WITH credential AS (${credentialUsable(use)})
        SELECT EXISTS (SELECT 1 FROM credential) AS credential_ok,
               CASE WHEN NOT EXISTS (SELECT 1 FROM credential) THEN ${credentialState(use)} END AS credential_state,
               body.*
          FROM (SELECT 1) head
          LEFT JOIN LATERAL (SELECT true AS body_row, b.* FROM (${body}) b) body ON EXISTS (SELECT 1 FROM credential)`;
}

/**
 * Runs `body` (a SELECT) in one statement with the credential check: the rows only when the
 * credential may be used.
 */
export async function runWithCredential<T>(db: Queryable, use: CredentialUse, body: Sql): Promise<CredentialedRows<T>> {
  const rows = await run<Record<string, unknown>>(db, credentialedStatement(use, body));
  const [head] = rows;
  if (!head || head.credential_ok !== true) return { refused: parseCredentialState(head?.credential_state), rows: [] };
  return {
    rows: rows
      .filter((row) => row.body_row === true)
      .map(({ credential_ok: _ok, credential_state: _state, body_row: _row, ...row }) => row as T),
  };
}
