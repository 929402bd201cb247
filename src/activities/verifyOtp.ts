// The verify_otp activity in its two shapes, on one path: V2 (ACTIVITY_TYPE_VERIFY_OTP_V2, and the V1
// type string when sent with V2's parameters, as @turnkey/core does) decrypts the code and the
// client's key from an HPKE encryptedOtpBundle made to init_otp's target key; V1
// (ACTIVITY_TYPE_VERIFY_OTP) takes the code in clear and keeps it out of what is stored. Both check
// the code in constant time, at most MAX_FAILED_ATTEMPTS wrong guesses, single use (the OTP is marked
// used, and its target key forgotten, by the activity's own statement), and answer a signed token.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { credentialRefused, invalidField, notFound, type SignetError } from '../errors.ts';
import { P256_PUBLIC_KEY_PATTERN, parseP256PublicKey } from '../keys/p256.ts';
import { CROCKFORD_ALPHABET, DIGIT_ALPHABET, hashOtpCode, normalizeOtpCode } from '../otp/code.ts';
import { decryptOtpBundle, MAX_OTP_BUNDLE_LENGTH, MAX_OTP_CODE_LENGTH, OtpBundleError } from '../otp/targetBundle.ts';
import { signEcosystemVerificationToken, signVerificationToken, VERIFICATION_TOKEN_KEY } from '../otp/verificationToken.ts';
import { claimOtp, countWrongGuess, findOtp, openTargetKey, otpState, type OtpRecord } from '../store/otps.ts';
import { NEW_ACTIVITY } from '../store/activities.ts';
import { markContactVerified } from '../store/users.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext } from './handler.ts';
import { wholeNumberPattern } from './numberPattern.ts';

export const MAX_FAILED_ATTEMPTS = 5;
export const DEFAULT_TOKEN_SECONDS = '3600';
export const MAX_TOKEN_SECONDS = 86_400;
/** What a verified code is replaced with in the stored intent and the votes' message. */
export const REDACTED_CODE = '[redacted]';

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const PUBLIC_KEY_PROBLEM =
  'must be a P-256 public key in hex: 66 characters starting with 02 or 03 (compressed) or 130 starting ' +
  'with 04 (uncompressed), and a point on the curve';

function isP256PublicKey(value: string): boolean {
  try {
    parseP256PublicKey(value);
    return true;
  } catch {
    return false;
  }
}

const otpId = z
  .string({ error: 'must be a string: the otpId that init_otp or init_otp_auth returned' })
  .regex(GUID, 'must be the otpId that init_otp or init_otp_auth returned (a UUID)')
  .meta({ format: 'uuid', description: "Identifier of the OTP: the otpId that init_otp or init_otp_auth returned. Another organization's is a 404" });

const expirationSeconds = z
  .string({ error: `must be a string of digits, e.g. "${DEFAULT_TOKEN_SECONDS}"` })
  .refine(
    (v) => /^[1-9][0-9]{0,4}$/.test(v) && Number(v) <= MAX_TOKEN_SECONDS,
    `must be the token lifetime in whole seconds from 1 to ${MAX_TOKEN_SECONDS} (24 hours) written as ` +
      `digits, e.g. "${DEFAULT_TOKEN_SECONDS}"`,
  )
  .meta({
    pattern: wholeNumberPattern(MAX_TOKEN_SECONDS),
    description: `Lifetime of the verification token in seconds written as digits: "${DEFAULT_TOKEN_SECONDS}" by default, at most "${MAX_TOKEN_SECONDS}" (24 hours)`,
  })
  .default(DEFAULT_TOKEN_SECONDS);

const objectExpected = { error: (issue: { code: string }) => (issue.code === 'invalid_type' ? 'must be an object' : undefined) };

/** `parameters` of verify_otp V1; its output, the echoed intent, has the token lifetime filled in. */
export const verifyOtpParameters = z.strictObject(
  {
    otpId,
    otpCode: z
      .string({ error: 'must be a string: the code the user received' })
      .superRefine((value, ctx) => {
        if (value.trim() === '') ctx.addIssue({ code: 'custom', message: 'must not be empty; give the code the user received' });
        else if (value.length > MAX_OTP_CODE_LENGTH) ctx.addIssue({ code: 'custom', message: `is longer than ${MAX_OTP_CODE_LENGTH} characters` });
      })
      .meta({
        minLength: 1,
        maxLength: MAX_OTP_CODE_LENGTH,
        pattern: '\\S',
        description:
          `The code as the user typed it: case, spaces and hyphens do not matter, and for alphanumeric codes I and L read as 1, O as 0. At most ${MAX_FAILED_ATTEMPTS} wrong codes per OTP. Not kept: the stored intent holds "[redacted]"`,
      }),
    expirationSeconds,
    // Lower-cased, so the intent and the token's public_key claim hold one spelling of the key.
    publicKey: z
      .string({ error: 'must be a string: a P-256 public key in hex' })
      .refine(isP256PublicKey, PUBLIC_KEY_PROBLEM)
      .meta({
        pattern: P256_PUBLIC_KEY_PATTERN,
        description:
          'Optional P-256 public key in hex, compressed (02…/03…) or uncompressed (04…), a point on the curve: written into the token, which binds it to this key (otp_login then requires its clientSignature)',
      })
      .transform((v) => v.toLowerCase())
      .optional(),
  },
  objectExpected,
);

/** `parameters` of verify_otp V2. */
export const verifyOtpV2Parameters = z.strictObject(
  {
    otpId,
    encryptedOtpBundle: z
      .string({ error: 'must be a string: what encryptOtpCodeToBundle returned' })
      .min(1, 'must not be empty; send what encryptOtpCodeToBundle returned')
      .max(MAX_OTP_BUNDLE_LENGTH, `is longer than ${MAX_OTP_BUNDLE_LENGTH} characters; send what encryptOtpCodeToBundle returned`)
      .describe(
        "What @turnkey/crypto's encryptOtpCodeToBundle returned: the code and the client's public key, HPKE-encrypted to this OTP's target key (init_otp's otpEncryptionTargetBundle). The token binds that public key",
      ),
    expirationSeconds,
  },
  objectExpected,
);

export type VerifyOtpIntent = z.output<typeof verifyOtpParameters>;
export type VerifyOtpV2Intent = z.output<typeof verifyOtpV2Parameters>;

const resultSchema = z.strictObject({
  verificationToken: z
    .string()
    .describe(
      "A signed ES256 JWT naming the verified contact (claims id, verification_type, contact, organization_id, public_key, exp): otp_login takes it once. Check it with @turnkey/crypto's verifyOtpVerificationToken and verificationTokenSignerPublicKey of /.well-known/signet-keys.json (V2), or any JOSE library and /.well-known/jwks.json (V1). A token bound to no key (V1 without publicKey) logs in without a signature, so it is given in this answer only: the stored activity (get_activity, list_activities, the same body submitted again) holds \"\" instead",
    ),
});
type VerifyOtpResult = z.infer<typeof resultSchema>;

const NEW_CODE = 'request a new code with init_otp or init_otp_auth';

export const verifyOtpV2: ActivityHandler<typeof verifyOtpV2Parameters, VerifyOtpResult> = {
  path: 'verify_otp',
  activityType: 'ACTIVITY_TYPE_VERIFY_OTP_V2',
  parentMaySubmit: true,
  description:
    "V2 (`encryptedOtpBundle`): decrypts the code and the client's key, encrypted to `init_otp`'s target key, checks the code (at most 5 wrong codes; single use) and answers a verification token bound to the client's key. `ACTIVITY_TYPE_VERIFY_OTP` with these parameters (what `@turnkey/core` sends) is V2 too.",
  otherActivityTypes: ['ACTIVITY_TYPE_VERIFY_OTP'],
  takes: (parameters) => 'encryptedOtpBundle' in parameters,
  intentKey: 'verifyOtpIntentV2',
  resultKey: 'verifyOtpResult',
  parameters: verifyOtpV2Parameters,
  resultSchema,
  example: {
    otpId: '3c9a1e2b-7d4f-4a6b-8c2d-1e0f9a8b7c6d',
    encryptedOtpBundle: '{"encappedPublic":"04…","ciphertext":"…"}',
  },

  async execute(context, intent) {
    const field = 'parameters.encryptedOtpBundle';
    const otp = await verifiableOtp(context, intent.otpId, field);
    if (otp.sealedTargetKey === null) {
      throw invalidField(
        field,
        'this OTP has no encryption target: it was started with init_otp_auth; send its code as otpCode ' +
          '(verify_otp V1), or start with init_otp, whose otpEncryptionTargetBundle the code is encrypted to',
      );
    }
    let content;
    try {
      content = await decryptOtpBundle(intent.encryptedOtpBundle, openTargetKey(context.secret, otp.id, otp.sealedTargetKey));
    } catch (error) {
      if (error instanceof OtpBundleError) throw invalidField(field, error.message);
      throw error;
    }
    await checkCode(context, otp, content.otpCode, field);
    const token = signEcosystemVerificationToken(await context.keys.get(VERIFICATION_TOKEN_KEY), {
      id: randomUUID(),
      verificationType: otp.otpType,
      contact: otp.contact,
      organizationId: context.organizationId,
      // As the client wrote it: its login message and its session name the key by this string.
      publicKey: content.publicKey,
      expiresAt: new Date(context.now.getTime() + Number(intent.expirationSeconds) * 1000),
      otpId: otp.id,
      issuedAt: context.now,
    });
    return claimed(context, otp, field, token, false);
  },
};

export const verifyOtp: ActivityHandler<typeof verifyOtpParameters, VerifyOtpResult> = {
  path: 'verify_otp',
  activityType: 'ACTIVITY_TYPE_VERIFY_OTP',
  parentMaySubmit: true,
  description:
    'V1 (`otpCode`): checks the code in clear (at most 5 wrong codes; single use; the code is not kept) and answers a verification token, bound to `publicKey` when one is given. Without `publicKey` the token is a bearer secret: only this answer holds it, the stored activity has `""`. The only way to verify an OTP of `init_otp_auth`.',
  takes: (parameters) => !('encryptedOtpBundle' in parameters),
  // The code is not kept: the stored intent and the votes' message carry REDACTED_CODE instead. The
  // vote's signature still checks against the fingerprint, the SHA-256 of the bytes as signed.
  redact: (parameters) => (typeof parameters.otpCode === 'string' ? { ...parameters, otpCode: REDACTED_CODE } : parameters),
  intentKey: 'verifyOtpIntent',
  resultKey: 'verifyOtpResult',
  parameters: verifyOtpParameters,
  resultSchema,
  example: { otpId: '3c9a1e2b-7d4f-4a6b-8c2d-1e0f9a8b7c6d', otpCode: 'K7Q2M9XH4' },

  async execute(context, intent) {
    const field = 'parameters.otpCode';
    const otp = await verifiableOtp(context, intent.otpId, field);
    await checkCode(context, otp, intent.otpCode, field);
    const token = await signVerificationToken(await context.keys.get(VERIFICATION_TOKEN_KEY), {
      otpId: otp.id,
      contact: otp.contact,
      otpType: otp.otpType,
      organizationId: context.organizationId,
      ...(intent.publicKey === undefined ? {} : { publicKey: intent.publicKey }),
      issuedAt: context.now,
      expirationSeconds: Number(intent.expirationSeconds),
    });
    // Bound to no key, the token logs in whoever holds it (otp_login V1 without a signature).
    return claimed(context, otp, field, token, intent.publicKey === undefined);
  },
};

/** The organization's OTP, while it can still be verified; otherwise the refusal. */
async function verifiableOtp(context: ExecutionContext, id: string, field: string): Promise<OtpRecord> {
  // Another organization's OTP is answered exactly like one that does not exist.
  const otp = await findOtp(context.db, context.organizationId, id);
  if (!otp) throw notFound(`no OTP with id ${id} exists in this organization; use the otpId that init_otp or init_otp_auth returned`);
  const refusal = otpRefusal(otp, context.now, field);
  if (refusal) throw refusal;
  return otp;
}

/**
 * Compares the code with the OTP's in constant time; a wrong one is counted (on its own: the
 * request is refused, the count must stay) and refused. The count only moves while under the limit,
 * on the row's latest state, so five is a hard cap even for concurrent guesses.
 */
async function checkCode(context: ExecutionContext, otp: OtpRecord, given: string, field: string): Promise<void> {
  // A code of the wrong shape cannot be the code, and its shape is public (the init intent holds
  // it), so a typo of length or alphabet is pointed out without spending an attempt.
  const code = normalizeOtpCode(given, otp.alphanumeric);
  const alphabet = otp.alphanumeric ? CROCKFORD_ALPHABET : DIGIT_ALPHABET;
  if (code.length !== otp.otpLength || [...code].some((symbol) => !alphabet.includes(symbol))) {
    const kind = otp.alphanumeric ? 'letters and digits' : 'digits';
    throw invalidField(field, `Invalid OTP code: the code must be the ${otp.otpLength} ${kind} the user received; check for a typo`);
  }
  const hashed = Buffer.from(hashOtpCode(context.secret, otp.id, code), 'hex');
  const stored = Buffer.from(otp.codeHash, 'hex');
  if (hashed.length === stored.length && timingSafeEqual(hashed, stored)) return;

  const counted = await countWrongGuess(context.db, context.principal.credential, context.organizationId, otp.id, MAX_FAILED_ATTEMPTS);
  if (counted.refused) throw credentialRefused(context.principal, counted.refused, context.now);
  if (counted.failedAttempts === undefined) {
    throw otpRefusal((await findOtp(context.db, context.organizationId, otp.id))!, context.now, field) ?? tooManyAttempts(field);
  }
  const left = MAX_FAILED_ATTEMPTS - counted.failedAttempts;
  // "Invalid OTP code" is what @turnkey/core looks for to tell its app the code was wrong.
  throw invalidField(
    field,
    left > 0
      ? `Invalid OTP code: it is not the code that was sent; ${left} attempt${left === 1 ? '' : 's'} left`
      : `Invalid OTP code: it is not the code that was sent, and that was the last attempt; ${NEW_CODE}`,
  );
}

/**
 * The plan once the code is right: the token, and the OTP used by the activity's own statement,
 * only while still unused, unexpired and under the limit there: two concurrent right guesses cannot
 * both get a token. A bearer token is answered but not stored. The contact counts as verified for
 * the users that have it, here and in the organization's sub-organizations.
 */
function claimed(context: ExecutionContext, otp: OtpRecord, field: string, verificationToken: string, bearer: boolean): ActivityPlan<VerifyOtpResult> {
  const { id } = otp;
  const contact = otp.otpType === 'OTP_TYPE_SMS' ? { phoneNumber: otp.contact } : { email: otp.contact };
  return {
    rows: [markContactVerified(NEW_ACTIVITY, context.organizationId, contact, context.now)],
    result: { verificationToken },
    ...(bearer ? { secretFields: ['verificationToken'] } : {}),
    gates: [
      {
        gate: { statement: claimOtp(context.organizationId, id, context.now, MAX_FAILED_ATTEMPTS), detail: otpState(id) },
        error: (detail) => {
          const state = (detail ?? {}) as { usedAt?: string | null; expiresAt?: string; failedAttempts?: number };
          return (
            otpRefusal(
              { usedAt: state.usedAt ? new Date(state.usedAt) : null, expiresAt: new Date(state.expiresAt ?? 0), failedAttempts: state.failedAttempts ?? 0 },
              context.now,
              field,
            ) ?? invalidField(field, `this OTP was already used; ${NEW_CODE}`)
          );
        },
      },
    ],
  };
}

const tooManyAttempts = (field: string) => invalidField(field, `too many wrong attempts; ${NEW_CODE}`);

/** Why an OTP cannot be verified any more, if it cannot. */
function otpRefusal(otp: Pick<OtpRecord, 'usedAt' | 'expiresAt' | 'failedAttempts'>, now: Date, field: string): SignetError | undefined {
  if (otp.usedAt !== null) return invalidField(field, `this OTP was already used; ${NEW_CODE}`);
  if (otp.expiresAt.getTime() <= now.getTime()) return invalidField(field, `this OTP expired; ${NEW_CODE}`);
  if (otp.failedAttempts >= MAX_FAILED_ATTEMPTS) return tooManyAttempts(field);
  return undefined;
}
