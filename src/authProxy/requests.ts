// The bodies of the auth proxy's routes, as @turnkey/core sends them (its proxy* methods), bounded.
// What they carry on to an activity (a sign-up's API keys, passkeys, wallet) is checked by that
// activity's own schema, which names the field at fault.
import { z } from 'zod';
import { MAX_TOKEN_LENGTH as MAX_OIDC_TOKEN_LENGTH } from '../auth/oidc/verifyIdToken.ts';
import { MAX_EMAIL_LENGTH } from '../otp/contactLimits.ts';
import { MAX_VERIFICATION_TOKEN_LENGTH } from '../otp/verificationToken.ts';

const token = (description: string) => z.string().min(1).max(MAX_VERIFICATION_TOKEN_LENGTH).describe(description);
const text = (max: number) => z.string().max(max);
const PROVEN = 'The verificationToken of /v1/otp_verify_v2 that proves the contact';

export const initOtpBody = z.strictObject({
  otpType: z.enum(['OTP_TYPE_EMAIL', 'OTP_TYPE_SMS'], { error: 'must be OTP_TYPE_EMAIL or OTP_TYPE_SMS' }).describe('OTP_TYPE_EMAIL or OTP_TYPE_SMS'),
  contact: text(MAX_EMAIL_LENGTH).min(1).describe('The email address or phone number (international form) the code is sent to'),
  emailCustomization: z
    .strictObject({ templateId: z.uuid().describe("An email template of the configuration's organization").optional() })
    .describe('Which email template to use')
    .optional(),
});

export const verifyOtpBody = z.strictObject({
  otpId: z.uuid().describe('The otpId of /v1/otp_init_v2'),
  encryptedOtpBundle: text(4096).min(1).describe("The code and the client's public key encrypted to the otpEncryptionTargetBundle (@turnkey/crypto's encryptOtpCodeToBundle)"),
});

export const otpLoginBody = z.strictObject({
  verificationToken: token('The verificationToken of /v1/otp_verify_v2; it logs in once'),
  publicKey: text(130).min(1).describe("The session's public key, P-256 in hex"),
  clientSignature: z.unknown().describe("The login message signed by the token's key (@turnkey/core's getClientSignatureMessageForLogin)"),
  invalidateExisting: z.boolean().describe("Revoke the user's other sessions").optional(),
  organizationId: z.uuid().describe("The sub-organization to log in to; by default the one of the token's contact").optional(),
});

export const signupBody = z.strictObject({
  userEmail: text(MAX_EMAIL_LENGTH).describe('The email address of the root user; needs verificationToken').optional(),
  userPhoneNumber: text(64).describe('The phone number of the root user; needs verificationToken').optional(),
  userTag: text(256).describe('Not taken: Signet tags no user of a sign-up').optional(),
  userName: text(256).describe('The name of the root user; its email or phone number by default').optional(),
  organizationName: text(256).describe('The name of the sub-organization').optional(),
  verificationToken: token(`${PROVEN}; used up by the sign-up`).optional(),
  apiKeys: z.array(z.unknown()).max(20).default([]).describe("The root user's API keys, as create_sub_organization takes them"),
  authenticators: z.array(z.unknown()).max(10).default([]).describe("The root user's passkeys (needs the passkey method)"),
  oauthProviders: z.array(z.unknown()).max(10).default([]).describe("The root user's OAuth providers, {providerName, oidcToken} each (needs the oauth method)"),
  wallet: z.unknown().describe("The wallet of the sub-organization ({walletName, accounts}); the configuration's default one when absent").optional(),
  clientSignature: z.unknown().describe("The sign-up message signed by the token's key (@turnkey/core's getClientSignatureMessageForSignup)").optional(),
});

export const ACCOUNT_FILTERS = ['EMAIL', 'PHONE_NUMBER', 'CREDENTIAL_ID', 'PUBLIC_KEY', 'OIDC_TOKEN'] as const;

export const accountBody = z.strictObject({
  filterType: z.enum(ACCOUNT_FILTERS, { error: `must be one of ${ACCOUNT_FILTERS.join(', ')}` }).describe(`What filterValue is: ${ACCOUNT_FILTERS.join(', ')}`),
  filterValue: text(MAX_OIDC_TOKEN_LENGTH).min(1).describe('The email address, phone number, passkey credential id, API key public key or OpenID Connect id token'),
  verificationToken: token(`${PROVEN}: required for EMAIL and PHONE_NUMBER`).optional(),
  oidcToken: text(MAX_OIDC_TOKEN_LENGTH).describe('Not read: an id token is given as filterValue with filterType OIDC_TOKEN').optional(),
});

export const oauthLoginBody = z.strictObject({
  oidcToken: text(MAX_OIDC_TOKEN_LENGTH).min(1).describe("An id token of an issuer in SIGNET_OIDC_ISSUERS, its nonce the SHA-256 of publicKey's hex"),
  publicKey: text(130).min(1).describe("The session's public key, P-256 in hex"),
  invalidateExisting: z.boolean().describe("Revoke the user's other sessions").optional(),
  organizationId: z.uuid().describe("The sub-organization to log in to; by default the one whose user the token's identity is bound to").optional(),
});

/** wallet_kit_config and wallet_kit_client_params take an empty object (or no body at all). */
export const emptyBody = z.strictObject({});
