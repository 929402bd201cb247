// The email_auth activity (ACTIVITY_TYPE_EMAIL_AUTH_V3): the user of the organization with `email`
// gets a new expiring API key of kind 'email_auth' (CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256), made here:
// its public half is registered, its private half sealed to the client's targetPublicKey in the
// ecosystem's credential bundle and emailed to the user through the outbox (the email channel of OTP
// messages, the bundle sealed in the row as a code is), never answered. The sends are counted in the
// email contact's rate window of the OTP messages.
import { z } from 'zod';
import { canonicalEmailAddress } from '../../../otp/contact.ts';
import type { ActivityHandler } from '../../handler.ts';
import { name, objectExpected, trueOrFalse, wholeSeconds } from '../../wire/parameters.ts';
import { bundleEmailFields, planBundleEmail } from './bundleEmails.ts';
import { targetPublicKeyParameter } from './credentialKeys.ts';
import { appName, emailAddress, emailCustomization } from './initOtpAuth.ts';
import { MAX_SESSION_SECONDS } from './sessionPlans.ts';

export const DEFAULT_EMAIL_AUTH_KEY_SECONDS = '900';
/** The key's name when apiKeyName is left out: this, a space and the moment it was made (ISO 8601). */
const DEFAULT_NAME_PREFIX = 'Email Auth -';

const parameters = z
  .strictObject(
    {
      email: emailAddress.describe("The user's email address: the user of the organization with it gets the key, and the email"),
      targetPublicKey: targetPublicKeyParameter,
      apiKeyName: name.describe(`Name of the new API key; not blank. Without it "${DEFAULT_NAME_PREFIX} <the moment it was made, ISO 8601>"`).optional(),
      expirationSeconds: wholeSeconds(
        MAX_SESSION_SECONDS,
        DEFAULT_EMAIL_AUTH_KEY_SECONDS,
        `must be the key's lifetime in whole seconds from 1 to ${MAX_SESSION_SECONDS} (30 days) written as digits, e.g. "${DEFAULT_EMAIL_AUTH_KEY_SECONDS}"`,
        `Lifetime of the new API key in seconds written as digits: "${DEFAULT_EMAIL_AUTH_KEY_SECONDS}" (15 minutes) by default, at most "${MAX_SESSION_SECONDS}" (30 days). After it every request stamped with the key is a 401`,
      ).default(DEFAULT_EMAIL_AUTH_KEY_SECONDS),
      emailCustomization: emailCustomization
        .extend({ appName })
        .describe('The email: appName (required) names the app; logoUrl, magicLinkTemplate (its %s gets the credential bundle), templateVariables and templateId as for init_otp_auth'),
      invalidateExisting: trueOrFalse().describe("true revokes the user's other email_auth keys at once (its API keys and sessions stay)").default(false),
      ...bundleEmailFields,
    },
    { error: objectExpected() },
  )
  .transform((p) => ({ ...p, email: canonicalEmailAddress(p.email) }));

const resultSchema = z.strictObject({
  userId: z.uuid().describe('The user of the organization with the email address'),
  apiKeyId: z.uuid().describe("The new API key (CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256), expiring after expirationSeconds; its private half is in the email only"),
});
type EmailAuthResult = z.infer<typeof resultSchema>;

export const emailAuth: ActivityHandler<typeof parameters, EmailAuthResult> = {
  path: 'email_auth',
  activityType: 'ACTIVITY_TYPE_EMAIL_AUTH_V3',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND', 'OTP_RATE_LIMITED'],
  summary:
    '`{email, targetPublicKey, emailCustomization: {appName, …}, apiKeyName?, expirationSeconds? = "900", invalidateExisting?, sendFromEmailAddress?, …}`: emails the user with that address a new API key\'s private half encrypted to `targetPublicKey` (a credential bundle); result `emailAuthResult {userId, apiKeyId}` ([Email auth](users.md#email-auth-a-credential-bundle-by-email))',
  parentMaySubmit: true,
  description:
    "Emails the user of the organization with `email` a new API key expiring after `expirationSeconds`: its private half, encrypted to `targetPublicKey`, is the email's credential bundle (and the `%s` of `magicLinkTemplate`), which @turnkey/crypto's `decryptCredentialBundle` opens with the target's private key. The answer names the user and the key, never the bundle. Counted in the email address's rate window of OTP emails (429 `OTP_RATE_LIMITED`).",
  intentKey: 'emailAuthIntentV3',
  resultKey: 'emailAuthResult',
  parameters,
  resultSchema,
  example: {
    email: 'alice@example.com',
    // The curve's generator: a real point, so the example passes the schema it illustrates.
    targetPublicKey: '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296',
    emailCustomization: { appName: 'Example Wallet', magicLinkTemplate: 'https://wallet.example/auth?bundle=%s' },
  },

  async execute(context, intent) {
    const { now } = context;
    const custom = intent.emailCustomization;
    const planned = await planBundleEmail(
      context,
      intent,
      { purpose: 'email_auth', appName: custom.appName, customization: custom },
      { kind: 'email_auth', name: intent.apiKeyName ?? `${DEFAULT_NAME_PREFIX} ${now.toISOString()}`, invalidateExisting: intent.invalidateExisting },
    );
    return { result: { userId: planned.userId, apiKeyId: planned.apiKeyId }, effects: planned.effects };
  },
};
