// The bodies of the auth proxy's routes, as @turnkey/core sends them (its proxy* methods), bounded.
// What they carry on to an activity (a sign-up's API keys, passkeys, wallet) is checked by that
// activity's own schema, which names the field at fault.
import { z } from 'zod';
import { MAX_EMAIL_LENGTH } from '../otp/contactLimits.ts';
import { MAX_VERIFICATION_TOKEN_LENGTH } from '../otp/verificationToken.ts';

const token = z.string().min(1).max(MAX_VERIFICATION_TOKEN_LENGTH);
const text = (max: number) => z.string().max(max);

export const initOtpBody = z.strictObject({
  otpType: z.enum(['OTP_TYPE_EMAIL', 'OTP_TYPE_SMS'], { error: 'must be OTP_TYPE_EMAIL or OTP_TYPE_SMS' }),
  contact: text(MAX_EMAIL_LENGTH).min(1),
  emailCustomization: z.strictObject({ templateId: z.uuid().optional() }).optional(),
});

export const verifyOtpBody = z.strictObject({
  otpId: z.uuid(),
  encryptedOtpBundle: text(4096).min(1),
});

export const otpLoginBody = z.strictObject({
  verificationToken: token,
  publicKey: text(130).min(1),
  clientSignature: z.unknown(),
  invalidateExisting: z.boolean().optional(),
  organizationId: z.uuid().optional(),
});

export const signupBody = z.strictObject({
  userEmail: text(MAX_EMAIL_LENGTH).optional(),
  userPhoneNumber: text(64).optional(),
  userTag: text(256).optional(),
  userName: text(256).optional(),
  organizationName: text(256).optional(),
  verificationToken: token.optional(),
  apiKeys: z.array(z.unknown()).max(20).default([]),
  authenticators: z.array(z.unknown()).max(10).default([]),
  oauthProviders: z.array(z.unknown()).max(10).default([]),
  wallet: z.unknown().optional(),
  clientSignature: z.unknown().optional(),
});
export type SignupBody = z.output<typeof signupBody>;

export const ACCOUNT_FILTERS = ['EMAIL', 'PHONE_NUMBER', 'CREDENTIAL_ID', 'PUBLIC_KEY', 'OIDC_TOKEN'] as const;

export const accountBody = z.strictObject({
  filterType: z.enum(ACCOUNT_FILTERS, { error: `must be one of ${ACCOUNT_FILTERS.join(', ')}` }),
  filterValue: text(MAX_VERIFICATION_TOKEN_LENGTH).min(1),
  verificationToken: token.optional(),
  oidcToken: text(MAX_VERIFICATION_TOKEN_LENGTH).optional(),
});

/** wallet_kit_config and wallet_kit_client_params take an empty object (or no body at all). */
export const emptyBody = z.strictObject({});
