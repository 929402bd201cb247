// The verify_otp activity in its two shapes, on one path: V2 (ACTIVITY_TYPE_VERIFY_OTP_V2, and the V1
// type string when sent with V2's parameters, as @turnkey/core does) decrypts the code and the
// client's key from an HPKE encryptedOtpBundle made to init_otp's target key; V1
// (ACTIVITY_TYPE_VERIFY_OTP) takes the code in clear and keeps it out of what is stored. Both check
// the code in constant time, at most MAX_FAILED_ATTEMPTS wrong guesses, single use (the OTP is marked
// used, and its target key forgotten, by the activity's own statement), and answer a signed token.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidField } from '../../../errors.ts';
import { P256_PUBLIC_KEY_PATTERN, parseP256PublicKey } from '../../../keys/p256.ts';
import { decryptOtpBundle, MAX_OTP_BUNDLE_LENGTH, OtpBundleError } from '../../../otp/targetBundle.ts';
import { signEcosystemVerificationToken, signVerificationToken, VERIFICATION_TOKEN_KEY } from '../../../otp/verificationToken.ts';
import { openTargetKey, type OtpRecord } from '../../../store/otps.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext } from '../../handler.ts';
import { objectExpected, wholeSeconds } from '../../wire/parameters.ts';
import { checkCode, claimGate, otpCodeParameter, otpIdParameter as otpId, redactOtpCode, verifiableOtp } from './otpCheck.ts';

export const DEFAULT_TOKEN_SECONDS = '3600';
export const MAX_TOKEN_SECONDS = 86_400;

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

const expirationSeconds = wholeSeconds(
  MAX_TOKEN_SECONDS,
  DEFAULT_TOKEN_SECONDS,
  `must be the token lifetime in whole seconds from 1 to ${MAX_TOKEN_SECONDS} (24 hours) written as ` +
    `digits, e.g. "${DEFAULT_TOKEN_SECONDS}"`,
  `Lifetime of the verification token in seconds written as digits: "${DEFAULT_TOKEN_SECONDS}" by default, at most "${MAX_TOKEN_SECONDS}" (24 hours)`,
)
  .default(DEFAULT_TOKEN_SECONDS);

/** `parameters` of verify_otp V1; its output, the echoed intent, has the token lifetime filled in. */
export const verifyOtpParameters = z.strictObject(
  {
    otpId,
    otpCode: otpCodeParameter,
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
  { error: objectExpected() },
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
  { error: objectExpected() },
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

export const verifyOtpV2: ActivityHandler<typeof verifyOtpV2Parameters, VerifyOtpResult> = {
  path: 'verify_otp',
  activityType: 'ACTIVITY_TYPE_VERIFY_OTP_V2',
  resource: 'OTP',
  action: 'VERIFY',
  reasons: ['OTP_NOT_FOUND', 'INVALID_OTP_CODE', 'OTP_EXPIRED', 'OTP_ALREADY_USED', 'OTP_ATTEMPTS_EXHAUSTED'],
  summary: 'Checks a code, `encryptedOtpBundle` (V2) or `otpCode` (V1); result `verifyOtpResult.verificationToken`',
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
  resource: 'OTP',
  action: 'VERIFY',
  reasons: ['OTP_NOT_FOUND', 'INVALID_OTP_CODE', 'OTP_EXPIRED', 'OTP_ALREADY_USED', 'OTP_ATTEMPTS_EXHAUSTED'],
  summary: 'Checks a code, `encryptedOtpBundle` (V2) or `otpCode` (V1); result `verifyOtpResult.verificationToken`',
  parentMaySubmit: true,
  description:
    'V1 (`otpCode`): checks the code in clear (at most 5 wrong codes; single use; the code is not kept) and answers a verification token, bound to `publicKey` when one is given. Without `publicKey` the token is a bearer secret: only this answer holds it, the stored activity has `""`. With `otp_auth` (which takes the code in clear too), the way to verify an OTP of `init_otp_auth`.',
  takes: (parameters) => !('encryptedOtpBundle' in parameters),
  redact: redactOtpCode,
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

/**
 * The plan once the code is right: the token, and the OTP used by the activity's own statement
 * (claimGate). A bearer token is answered but not stored. The code proves the contact to whoever
 * holds the token, at this moment: it marks no user's contact as verified (a user's copy of the
 * contact is proven when the token is given with it, or when it logs that user in).
 */
function claimed(context: ExecutionContext, otp: OtpRecord, field: string, verificationToken: string, bearer: boolean): ActivityPlan<VerifyOtpResult> {
  const { id } = otp;
  return {
    result: { verificationToken },
    ...(bearer ? { secretFields: ['verificationToken'] } : {}),
    effects: [claimGate(context, id, field)],
  };
}
