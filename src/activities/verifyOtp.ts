// The verify_otp activity (ACTIVITY_TYPE_VERIFY_OTP): checks a code against its OTP row in constant
// time, at most MAX_FAILED_ATTEMPTS wrong guesses, single use (the OTP is marked used by the activity's
// own statement), and answers with a signed token.
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { parseP256PublicKey } from '../keys/p256.ts';
import { credentialRefused, invalidField, notFound, type SignetError } from '../errors.ts';
import { CROCKFORD_ALPHABET, DIGIT_ALPHABET, hashOtpCode, normalizeOtpCode } from '../otp/code.ts';
import { signVerificationToken, VERIFICATION_TOKEN_KEY } from '../otp/verificationToken.ts';
import { claimOtp, countWrongGuess, findOtp, otpState, type OtpRecord } from '../store/otps.ts';
import type { ActivityHandler } from './handler.ts';

export const MAX_FAILED_ATTEMPTS = 5;
export const DEFAULT_TOKEN_SECONDS = '3600';
export const MAX_TOKEN_SECONDS = 86_400;
// Generous next to the 6–9 symbols of a code, so separators and stray spaces fit, yet bounded.
const MAX_OTP_CODE_LENGTH = 64;

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

/** `parameters` of verify_otp; its output, the echoed intent, has the token lifetime filled in. */
export const verifyOtpParameters = z.strictObject(
  {
    otpId: z
      .string({ error: 'must be a string: the otpId that init_otp_auth returned' })
      .regex(GUID, 'must be the otpId that init_otp_auth returned (a UUID)'),
    otpCode: z.string({ error: 'must be a string: the code the user received' }).superRefine((value, ctx) => {
      if (value.trim() === '') ctx.addIssue({ code: 'custom', message: 'must not be empty; give the code the user received' });
      else if (value.length > MAX_OTP_CODE_LENGTH) ctx.addIssue({ code: 'custom', message: `is longer than ${MAX_OTP_CODE_LENGTH} characters` });
    }),
    expirationSeconds: z
      .string({ error: `must be a string of digits, e.g. "${DEFAULT_TOKEN_SECONDS}"` })
      .refine(
        (v) => /^[1-9][0-9]{0,4}$/.test(v) && Number(v) <= MAX_TOKEN_SECONDS,
        `must be the token lifetime in whole seconds from 1 to ${MAX_TOKEN_SECONDS} (24 hours) written as ` +
          `digits, e.g. "${DEFAULT_TOKEN_SECONDS}"`,
      )
      .default(DEFAULT_TOKEN_SECONDS),
    // Lower-cased, so the intent and the token's public_key claim hold one spelling of the key.
    publicKey: z
      .string({ error: 'must be a string: a P-256 public key in hex' })
      .refine(isP256PublicKey, PUBLIC_KEY_PROBLEM)
      .transform((v) => v.toLowerCase())
      .optional(),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'must be an object' : undefined) },
);

export type VerifyOtpIntent = z.output<typeof verifyOtpParameters>;

export interface VerifyOtpResult {
  verificationToken: string;
}

const CODE_FIELD = 'parameters.otpCode';
const NEW_CODE = 'request a new code with init_otp_auth';

export const verifyOtp: ActivityHandler<typeof verifyOtpParameters, VerifyOtpResult> = {
  path: 'verify_otp',
  activityType: 'ACTIVITY_TYPE_VERIFY_OTP',
  intentKey: 'verifyOtpIntent',
  resultKey: 'verifyOtpResult',
  parameters: verifyOtpParameters,
  example: { otpId: '3c9a1e2b-7d4f-4a6b-8c2d-1e0f9a8b7c6d', otpCode: 'K7Q2M9XH4' },

  async plan(context, intent) {
    const { organizationId } = context;
    // Another organization's OTP is answered exactly like one that does not exist.
    const otp = await findOtp(context.db, organizationId, intent.otpId);
    if (!otp) {
      throw notFound(`no OTP with id ${intent.otpId} exists in this organization; use the otpId that init_otp_auth returned`);
    }
    const refusal = otpRefusal(otp, context.now);
    if (refusal) throw refusal;

    // A code of the wrong shape cannot be the code, and its shape is public (the init intent holds
    // it), so a typo of length or alphabet is pointed out without spending an attempt.
    const code = normalizeOtpCode(intent.otpCode, otp.alphanumeric);
    const alphabet = otp.alphanumeric ? CROCKFORD_ALPHABET : DIGIT_ALPHABET;
    if (code.length !== otp.otpLength || [...code].some((symbol) => !alphabet.includes(symbol))) {
      const kind = otp.alphanumeric ? 'letters and digits' : 'digits';
      throw invalidField(CODE_FIELD, `must be the ${otp.otpLength} ${kind} the user received; check for a typo`);
    }

    const given = Buffer.from(hashOtpCode(context.secret, intent.otpId, code), 'hex');
    const stored = Buffer.from(otp.codeHash, 'hex');
    if (!(given.length === stored.length && timingSafeEqual(given, stored))) {
      // Counted on its own, before the refusal: the request is refused, the count must stay. The
      // count only moves while under the limit, on the row's latest state, so five is a hard cap
      // even for concurrent guesses.
      const counted = await countWrongGuess(context.db, context.principal.credential, organizationId, intent.otpId, MAX_FAILED_ATTEMPTS);
      if (counted.refused) throw credentialRefused(context.principal, counted.refused, context.now);
      if (counted.failedAttempts === undefined) throw otpRefusal((await findOtp(context.db, organizationId, intent.otpId))!, context.now) ?? tooManyAttempts();
      const left = MAX_FAILED_ATTEMPTS - counted.failedAttempts;
      throw invalidField(
        CODE_FIELD,
        left > 0
          ? `is not the code that was sent; ${left} attempt${left === 1 ? '' : 's'} left`
          : `is not the code that was sent, and that was the last attempt; ${NEW_CODE}`,
      );
    }

    const verificationToken = await signVerificationToken(await context.keys.get(VERIFICATION_TOKEN_KEY), {
      otpId: intent.otpId.toLowerCase(),
      contact: otp.contact,
      otpType: otp.otpType,
      organizationId,
      ...(intent.publicKey === undefined ? {} : { publicKey: intent.publicKey }),
      issuedAt: context.now,
      expirationSeconds: Number(intent.expirationSeconds),
    });
    return {
      result: { verificationToken },
      // The OTP is used by the activity's own statement, and only while still unused, unexpired and
      // under the limit there: two concurrent right guesses cannot both get a token.
      gates: [
        {
          gate: { statement: claimOtp(organizationId, intent.otpId, context.now, MAX_FAILED_ATTEMPTS), detail: otpState(intent.otpId) },
          error: (detail) => {
            const state = (detail ?? {}) as { usedAt?: string | null; expiresAt?: string; failedAttempts?: number };
            return (
              otpRefusal(
                { usedAt: state.usedAt ? new Date(state.usedAt) : null, expiresAt: new Date(state.expiresAt ?? 0), failedAttempts: state.failedAttempts ?? 0 },
                context.now,
              ) ?? invalidField(CODE_FIELD, `this OTP was already used; ${NEW_CODE}`)
            );
          },
        },
      ],
    };
  },
};

const tooManyAttempts = () => invalidField(CODE_FIELD, `too many wrong attempts; ${NEW_CODE}`);

/** Why an OTP cannot be verified any more, if it cannot. */
function otpRefusal(otp: Pick<OtpRecord, 'usedAt' | 'expiresAt' | 'failedAttempts'>, now: Date): SignetError | undefined {
  if (otp.usedAt !== null) return invalidField(CODE_FIELD, `this OTP was already used; ${NEW_CODE}`);
  if (otp.expiresAt.getTime() <= now.getTime()) return invalidField(CODE_FIELD, `this OTP expired; ${NEW_CODE}`);
  if (otp.failedAttempts >= MAX_FAILED_ATTEMPTS) return tooManyAttempts();
  return undefined;
}

