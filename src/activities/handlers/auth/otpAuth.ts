// The otp_auth activity (ACTIVITY_TYPE_OTP_AUTH): the code of an OTP (init_otp_auth's or init_otp's)
// in clear, an API key out. The code is checked as verify_otp checks it (otpCheck.ts: constant time,
// at most five wrong codes, single use, not kept); the user of the organization with the contact the
// code went to gets a new expiring key of kind 'otp_auth' (CREDENTIAL_TYPE_OTP_AUTH_KEY_P256), whose
// key pair is made here: only its public half is stored, its private half is answered sealed to the
// client's targetPublicKey in the ecosystem's credential bundle, in this answer only.
import { z } from 'zod';
import { notFound } from '../../../errors.ts';
import { canonicalEmailAddress } from '../../../otp/contact.ts';
import { check, write } from '../../../store/effects.ts';
import { findUserByContact } from '../../../store/users.ts';
import type { ActivityHandler } from '../../handler.ts';
import { name, objectExpected, trueOrFalse, wholeSeconds } from '../../wire/parameters.ts';
import { checkCode, claimGate, otpCodeParameter, otpIdParameter, redactOtpCode, verifiableOtp } from './otpCheck.ts';
import { MAX_SESSION_SECONDS } from './sessionPlans.ts';
import { planBundledKey, targetPublicKeyParameter } from './credentialKeys.ts';

export const DEFAULT_OTP_AUTH_KEY_SECONDS = '900';
/** The key's name when apiKeyName is left out: this, a space and the moment it was made (ISO 8601). */
const DEFAULT_NAME_PREFIX = 'OTP Auth -';

const parameters = z.strictObject(
  {
    otpId: otpIdParameter,
    otpCode: otpCodeParameter,
    targetPublicKey: targetPublicKeyParameter,
    apiKeyName: name
      .describe(`Name of the new API key; not blank. Without it "${DEFAULT_NAME_PREFIX} <the moment it was made, ISO 8601>"`)
      .optional(),
    expirationSeconds: wholeSeconds(
      MAX_SESSION_SECONDS,
      DEFAULT_OTP_AUTH_KEY_SECONDS,
      `must be the key's lifetime in whole seconds from 1 to ${MAX_SESSION_SECONDS} (30 days) written as digits, e.g. "${DEFAULT_OTP_AUTH_KEY_SECONDS}"`,
      `Lifetime of the new API key in seconds written as digits: "${DEFAULT_OTP_AUTH_KEY_SECONDS}" (15 minutes) by default, at most "${MAX_SESSION_SECONDS}" (30 days), as otp_login's sessions. After it every request stamped with the key is a 401`,
    )
      .default(DEFAULT_OTP_AUTH_KEY_SECONDS),
    invalidateExisting: trueOrFalse()
      .describe("true revokes the user's other otp_auth keys at once (its API keys and sessions stay)")
      .default(false),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  userId: z.uuid().describe('The user of the organization with the email address or phone number the code was sent to'),
  apiKeyId: z.uuid().describe('The new API key of that user (CREDENTIAL_TYPE_OTP_AUTH_KEY_P256), expiring after expirationSeconds'),
  credentialBundle: z
    .string()
    .describe(
      "The new key's private half, HPKE-encrypted to targetPublicKey, base58check: @turnkey/crypto's decryptCredentialBundle(credentialBundle, <targetPublicKey's private key>) gives it in hex. Signet keeps only the public half, and this bundle only in this answer: the stored activity (get_activity, list_activities, the same body submitted again) holds \"\"",
    ),
});
type OtpAuthResult = z.infer<typeof resultSchema>;

const CODE_FIELD = 'parameters.otpCode';

export const otpAuth: ActivityHandler<typeof parameters, OtpAuthResult> = {
  path: 'otp_auth',
  activityType: 'ACTIVITY_TYPE_OTP_AUTH',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['OTP_NOT_FOUND', 'INVALID_OTP_CODE', 'OTP_EXPIRED', 'OTP_ALREADY_USED', 'OTP_ATTEMPTS_EXHAUSTED', 'USER_NOT_FOUND'],
  summary:
    '`{otpId, otpCode, targetPublicKey, apiKeyName?, expirationSeconds? = "900", invalidateExisting? = false}`: the code, checked as `verify_otp` checks it, gives the user with the contact the code went to a new API key expiring after `expirationSeconds` (at most `"2592000"`); result `otpAuthResult {userId, apiKeyId, credentialBundle}`, the key\'s private half encrypted to `targetPublicKey`, in this answer only ([otp_auth](otp.md#otp_auth-the-code-for-an-api-key))',
  parentMaySubmit: true,
  description:
    "Logs in with the code of an OTP (`init_otp_auth`'s or `init_otp`'s), sent in clear: checked as `verify_otp` checks it (at most 5 wrong codes; single use; the code is not kept), it gives the user of the organization with the email address or phone number the code went to a new API key expiring after `expirationSeconds`, whose private half comes back encrypted to `targetPublicKey` (`credentialBundle`, in this answer only). A contact no user has is a 404.",
  redact: redactOtpCode,
  intentKey: 'otpAuthIntent',
  resultKey: 'otpAuthResult',
  parameters,
  resultSchema,
  example: {
    otpId: '3c9a1e2b-7d4f-4a6b-8c2d-1e0f9a8b7c6d',
    otpCode: 'K7Q2M9XH4',
    // The curve's generator: a real point, so the example passes the schema it illustrates.
    targetPublicKey: '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296',
    expirationSeconds: '900',
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const otp = await verifiableOtp(context, intent.otpId, CODE_FIELD);
    await checkCode(context, otp, intent.otpCode, CODE_FIELD);

    // An OTP row holds its contact as init_otp(_auth)'s intent wrote it: E.164, or an email in one spelling.
    const contact = otp.otpType === 'OTP_TYPE_SMS' ? { phoneNumber: otp.contact } : { email: canonicalEmailAddress(otp.contact) };
    const named = 'email' in contact ? `email address ${contact.email}` : `phone number ${contact.phoneNumber}`;
    const user = await findUserByContact(context.db, organizationId, contact);
    if (!user) {
      throw notFound(
        'USER_NOT_FOUND',
        `no user of this organization has the ${named} the code was sent to; create the user first (create_users with ` +
          `${'email' in contact ? 'userEmail' : 'userPhoneNumber'}, or "signet user create"), then send a new code`,
      );
    }

    const key = await planBundledKey(context, {
      userId: user.id,
      kind: 'otp_auth',
      name: intent.apiKeyName ?? `${DEFAULT_NAME_PREFIX} ${now.toISOString()}`,
      targetPublicKey: intent.targetPublicKey,
      expirationSeconds: intent.expirationSeconds,
      invalidateExisting: intent.invalidateExisting,
    });
    return {
      result: { userId: user.id, apiKeyId: key.apiKeyId, credentialBundle: key.credentialBundle },
      // Whoever reads the bundle with the target's private key holds the key: it is not stored.
      secretFields: ['credentialBundle'],
      effects: [
        check('userActive', [organizationId, user.id], notFound('USER_NOT_FOUND', `the user with the ${named} was removed; create the user again, then send a new code`)),
        // The OTP is used by the activity's statement itself: two right codes at once make one key.
        claimGate(context, otp.id, CODE_FIELD),
        // The code proves the contact for this user only.
        write('markUserContactVerified', organizationId, user.id, contact, now),
        ...key.effects,
      ],
    };
  },
};
