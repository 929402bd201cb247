// The init_user_email_recovery activity (ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2): the user of the
// organization with `email` gets a recovery key (kind 'recovery', CREDENTIAL_TYPE_RECOVER_USER_KEY_P256)
// for `expirationSeconds`, its private half sealed to the client's targetPublicKey and emailed
// (bundleEmails.ts). The key stamps recover_user only, which adds a passkey to the user and uses it
// up; a new recovery email ends the key of the one before.
import { z } from 'zod';
import { canonicalEmailAddress } from '../../../otp/contact.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, wholeSeconds } from '../../wire/parameters.ts';
import { bundleEmailFields, planBundleEmail } from './bundleEmails.ts';
import { targetPublicKeyParameter } from './credentialKeys.ts';
import { appName, emailAddress, emailCustomization } from './initOtpAuth.ts';

export const DEFAULT_RECOVERY_SECONDS = '900';
/** A recovery key lasts a day at most: it adds a passkey, which is as much as the account. */
export const MAX_RECOVERY_SECONDS = 86_400;

const parameters = z
  .strictObject(
    {
      email: emailAddress.describe('The email address of the user to recover: the user of the organization with it gets the recovery email'),
      targetPublicKey: targetPublicKeyParameter,
      expirationSeconds: wholeSeconds(
        MAX_RECOVERY_SECONDS,
        DEFAULT_RECOVERY_SECONDS,
        `must be the recovery key's lifetime in whole seconds from 1 to ${MAX_RECOVERY_SECONDS} (a day) written as digits, e.g. "${DEFAULT_RECOVERY_SECONDS}"`,
        `Lifetime of the recovery key in seconds written as digits: "${DEFAULT_RECOVERY_SECONDS}" (15 minutes) by default, at most "${MAX_RECOVERY_SECONDS}" (a day)`,
      ).default(DEFAULT_RECOVERY_SECONDS),
      emailCustomization: emailCustomization
        .extend({ appName })
        .describe('The email: appName (required) names the app; logoUrl, magicLinkTemplate (its %s gets the recovery bundle), templateVariables and templateId as for init_otp_auth'),
      ...bundleEmailFields,
    },
    { error: objectExpected() },
  )
  .transform((p) => ({ ...p, email: canonicalEmailAddress(p.email) }));

const resultSchema = z.strictObject({ userId: z.uuid().describe('The user being recovered: the one with the email address') });
type InitUserEmailRecoveryResult = z.infer<typeof resultSchema>;

export const initUserEmailRecovery: ActivityHandler<typeof parameters, InitUserEmailRecoveryResult> = {
  path: 'init_user_email_recovery',
  activityType: 'ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND', 'OTP_RATE_LIMITED'],
  summary:
    '`{email, targetPublicKey, emailCustomization: {appName, …}, expirationSeconds? = "900", sendFromEmailAddress?, …}`: emails the user with that address a recovery key encrypted to `targetPublicKey`, which stamps `recover_user` only; result `initUserEmailRecoveryResult {userId}` ([Recovery](users.md#recovery-by-email))',
  parentMaySubmit: true,
  description:
    "Emails the user of the organization with `email` a recovery credential: a new key, expiring after `expirationSeconds`, whose private half is encrypted to `targetPublicKey` (the email's credential bundle, which @turnkey/crypto's `decryptCredentialBundle` opens). The key stamps `recover_user` only, which adds a passkey to the user and uses the key up. Counted in the email address's rate window of OTP emails (429 `OTP_RATE_LIMITED`).",
  intentKey: 'initUserEmailRecoveryIntentV2',
  resultKey: 'initUserEmailRecoveryResult',
  parameters,
  resultSchema,
  example: {
    email: 'alice@example.com',
    // The curve's generator: a real point, so the example passes the schema it illustrates.
    targetPublicKey: '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296',
    emailCustomization: { appName: 'Example Wallet', magicLinkTemplate: 'https://wallet.example/recover?bundle=%s' },
  },

  async execute(context, intent) {
    const custom = intent.emailCustomization;
    const planned = await planBundleEmail(
      context,
      intent,
      { purpose: 'recovery', appName: custom.appName, customization: custom },
      // One recovery at a time: the key of an earlier email stops.
      { kind: 'recovery', name: `Recovery - ${context.now.toISOString()}`, invalidateExisting: true },
    );
    return { result: { userId: planned.userId }, effects: planned.effects };
  },
};
