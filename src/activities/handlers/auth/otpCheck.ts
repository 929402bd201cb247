// Checking a code against an issued OTP, for every activity that takes one (verify_otp in its two
// shapes, otp_auth): the OTP of the organization while it can still be verified, the code compared
// in constant time with at most MAX_FAILED_ATTEMPTS wrong guesses (each counted on its own), and the
// take that uses the OTP once, in the activity's own statement.
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { credentialRefused, invalidField, notFound, type SignetError } from '../../../errors.ts';
import { CROCKFORD_ALPHABET, DIGIT_ALPHABET, hashOtpCode, normalizeOtpCode } from '../../../otp/code.ts';
import { MAX_OTP_CODE_LENGTH } from '../../../otp/targetBundle.ts';
import { take, type Effect } from '../../../store/effects.ts';
import { countWrongGuess, findOtp, type OtpRecord } from '../../../store/otps.ts';
import type { ExecutionContext } from '../../handler.ts';
import { UUID_PATTERN } from '../../../wire/uuid.ts';

export const MAX_FAILED_ATTEMPTS = 5;
/** What a code sent in clear is replaced with in the stored intent and the votes' message. */
export const REDACTED_CODE = '[redacted]';

/** The parameter naming the OTP. */
export const otpIdParameter = z
  .string({ error: 'must be a string: the otpId that init_otp or init_otp_auth returned' })
  .regex(UUID_PATTERN, 'must be the otpId that init_otp or init_otp_auth returned (a UUID)')
  .meta({ format: 'uuid', description: "Identifier of the OTP: the otpId that init_otp or init_otp_auth returned. Another organization's is a 404" });

/** The parameter carrying the code in clear; `redactOtpCode` keeps it out of what is stored. */
export const otpCodeParameter = z
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
      `The code as the user typed it: case, spaces and hyphens do not matter, and for alphanumeric codes I and L read as 1, O as 0. At most ${MAX_FAILED_ATTEMPTS} wrong codes per OTP. Not kept: the stored intent holds "${REDACTED_CODE}"`,
  });

/**
 * A handler's `redact` for parameters with `otpCode`: the code is not kept, the stored intent and
 * the votes' message carry REDACTED_CODE instead. The vote's signature still checks against the
 * fingerprint, the SHA-256 of the bytes as signed.
 */
export function redactOtpCode(parameters: Record<string, unknown>): Record<string, unknown> {
  return typeof parameters.otpCode === 'string' ? { ...parameters, otpCode: REDACTED_CODE } : parameters;
}

const NEW_CODE = 'request a new code with init_otp or init_otp_auth';

/** The organization's OTP, while it can still be verified; otherwise the refusal (a 400 naming `field`, or a 404). */
export async function verifiableOtp(context: ExecutionContext, id: string, field: string): Promise<OtpRecord> {
  // Another organization's OTP is answered exactly like one that does not exist.
  const otp = await findOtp(context.db, context.organizationId, id);
  if (!otp) throw notFound('OTP_NOT_FOUND', `no OTP with id ${id} exists in this organization; use the otpId that init_otp or init_otp_auth returned`);
  const refusal = otpRefusal(otp, context.now, field);
  if (refusal) throw refusal;
  return otp;
}

/**
 * Compares the code with the OTP's in constant time; a wrong one is counted (on its own: the
 * request is refused, the count must stay) and refused. The count only moves while under the limit,
 * on the row's latest state, so five is a hard cap even for concurrent guesses.
 */
export async function checkCode(context: ExecutionContext, otp: OtpRecord, given: string, field: string): Promise<void> {
  // A code of the wrong shape cannot be the code, and its shape is public (the init intent holds
  // it), so a typo of length or alphabet is pointed out without spending an attempt.
  const code = normalizeOtpCode(given, otp.alphanumeric);
  const alphabet = otp.alphanumeric ? CROCKFORD_ALPHABET : DIGIT_ALPHABET;
  if (code.length !== otp.otpLength || [...code].some((symbol) => !alphabet.includes(symbol))) {
    const kind = otp.alphanumeric ? 'letters and digits' : 'digits';
    throw invalidField(field, `Invalid OTP code: the code must be the ${otp.otpLength} ${kind} the user received; check for a typo`, 'INVALID_OTP_CODE');
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
    'INVALID_OTP_CODE',
  );
}

/**
 * What a plan takes once the code is right: the OTP's one use, by the activity's own statement, only
 * while still unused, unexpired and under the limit there, so two concurrent right guesses cannot
 * both succeed. The refusal says why from the OTP's state then.
 */
export function claimGate(context: ExecutionContext, id: string, field: string): Effect {
  return take('otp', [context.organizationId, id, context.now, MAX_FAILED_ATTEMPTS], (detail) => {
    const state = (detail ?? {}) as { usedAt?: string | null; expiresAt?: string; failedAttempts?: number };
    return (
      otpRefusal(
        { usedAt: state.usedAt ? new Date(state.usedAt) : null, expiresAt: new Date(state.expiresAt ?? 0), failedAttempts: state.failedAttempts ?? 0 },
        context.now,
        field,
      ) ?? invalidField(field, `this OTP was already used; ${NEW_CODE}`, 'OTP_ALREADY_USED')
    );
  });
}

const tooManyAttempts = (field: string) => invalidField(field, `too many wrong attempts; ${NEW_CODE}`, 'OTP_ATTEMPTS_EXHAUSTED');

/** Why an OTP cannot be verified any more, if it cannot. */
function otpRefusal(otp: Pick<OtpRecord, 'usedAt' | 'expiresAt' | 'failedAttempts'>, now: Date, field: string): SignetError | undefined {
  if (otp.usedAt !== null) return invalidField(field, `this OTP was already used; ${NEW_CODE}`, 'OTP_ALREADY_USED');
  if (otp.expiresAt.getTime() <= now.getTime()) return invalidField(field, `this OTP expired; ${NEW_CODE}`, 'OTP_EXPIRED');
  if (otp.failedAttempts >= MAX_FAILED_ATTEMPTS) return tooManyAttempts(field);
  return undefined;
}
