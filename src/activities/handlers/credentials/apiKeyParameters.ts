// What create_users and create_api_keys share about the API keys they register: the schema of one
// key in the ecosystem's shape (apiKeyName, publicKey, curveType, expirationSeconds), the key as the
// store writes it, and the refusal when the organization's tree already has one of the public keys.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidArgument, SignetError, type FieldViolation } from '../../../errors.ts';
import { P256_PUBLIC_KEY_PATTERN, p256PointHex } from '../../../keys/p256.ts';
import type { NewApiKey } from '../../../store/apiKeys.ts';
import { wholeNumberPattern } from '../../../wire/numberPattern.ts';
import { name, text } from '../../wire/parameters.ts';

/** An API key's lifetime: at most ten years, as the admin API's. */
const MAX_KEY_EXPIRATION_SECONDS = 10 * 365 * 24 * 3600;
const CURVES = ['API_KEY_CURVE_P256', 'API_KEY_CURVE_SECP256K1', 'API_KEY_CURVE_ED25519'];

/** One API key to register, as @turnkey/http sends it (v1ApiKeyParamsV2). */
export const apiKeyParameter = z
  .strictObject({
    apiKeyName: name.describe('Name of the API key; not blank'),
    publicKey: text(130, (v) =>
      p256PointHex(v) ? undefined : 'must be a P-256 public key in hex: 66 characters (compressed) or 130 (uncompressed), a point on the curve',
    ).meta({
      pattern: P256_PUBLIC_KEY_PATTERN,
      description: 'The public half of the key pair, P-256 in hex (compressed or uncompressed), a point on the curve; not a key of the organization, its parent or one of their sub-organizations already (revoked ones too)',
    }),
    curveType: z
      .string({ error: 'must be a string' })
      .superRefine((value, ctx) => {
        if (value === 'API_KEY_CURVE_P256') return;
        const message = CURVES.includes(value)
          ? `Signet does not support ${value} API keys; only API_KEY_CURVE_P256`
          : 'must be API_KEY_CURVE_P256 (the only curve Signet supports)';
        ctx.addIssue({ code: 'custom', message });
      })
      .meta({ enum: ['API_KEY_CURVE_P256'], description: 'API_KEY_CURVE_P256, the only curve Signet supports' }),
    expirationSeconds: text(16, (v) =>
      /^[1-9][0-9]*$/.test(v) && Number(v) <= MAX_KEY_EXPIRATION_SECONDS
        ? undefined
        : `must be a whole number of seconds from 1 to ${MAX_KEY_EXPIRATION_SECONDS} written as digits, e.g. "86400"`,
    )
      .meta({
        pattern: wholeNumberPattern(MAX_KEY_EXPIRATION_SECONDS),
        description: `Lifetime of the key in seconds written as digits, at most ten years ("${MAX_KEY_EXPIRATION_SECONDS}"); without it the key does not expire`,
      })
      .optional(),
  })
  .describe('An API key of the user');

export type ApiKeyParameter = z.output<typeof apiKeyParameter>;

/** The key as the store registers it for the user, with a new id; it expires `expirationSeconds` after `now`. */
export function newApiKey(key: ApiKeyParameter, userId: string, now: Date): NewApiKey {
  const seconds = key.expirationSeconds === undefined ? undefined : Number(key.expirationSeconds);
  return {
    id: randomUUID(),
    userId,
    name: key.apiKeyName,
    publicKey: p256PointHex(key.publicKey)!.compressed,
    expiresAt: seconds === undefined ? null : new Date(now.getTime() + seconds * 1000),
  };
}

/** A 400 listing the fields refused; `fallback` (about `fallbackField`) when none can be named. */
export function refusedFields(violations: FieldViolation[], fallbackField: string, fallback: string, reason?: 'PUBLIC_KEY_TAKEN') {
  const refusal = (message: string, fieldViolations: FieldViolation[]) =>
    reason ? new SignetError(reason, message, { fieldViolations }) : invalidArgument(message, fieldViolations);
  if (violations.length === 0) return refusal(`${fallbackField}: ${fallback}`, [{ field: fallbackField, description: fallback }]);
  const summary = violations.slice(0, 5).map((v) => `${v.field}: ${v.description}`).join('; ');
  return refusal(`${summary}${violations.length > 5 ? ` (and ${violations.length - 5} more)` : ''}`, violations);
}

export const RACED = 'was taken by a concurrent request meanwhile; submit again';

/**
 * Why a public key cannot be registered: a key names one principal wherever it reaches, and a key of
 * an organization reaches its sub-organizations, and (for whoami and stamp_login) its parent.
 */
export const PUBLIC_KEY_TAKEN =
  'this public key is already registered in this organization, its parent or one of their sub-organizations (revoked ones too); ' +
  'one public key names one user: create a new key pair';

/**
 * The refusal (PUBLIC_KEY_TAKEN) when the organization's tree has some of the public keys (the detail
 * of store's apiKeysFree: the compressed keys taken), naming the fields (`fields`: each compressed
 * key's fields in the request).
 */
export function publicKeysTaken(detail: unknown, fields: Map<string, string[]>, fallbackField: string) {
  const taken = (Array.isArray(detail) ? detail : []) as string[];
  return refusedFields(
    taken.flatMap((key) => (fields.get(key) ?? []).map((field) => ({ field, description: PUBLIC_KEY_TAKEN }))),
    fallbackField,
    `a public key ${RACED}`,
    'PUBLIC_KEY_TAKEN',
  );
}
