// The init_otp activity (ACTIVITY_TYPE_INIT_OTP_V3), the first step of the ecosystem's OTP login:
// init_otp_auth's parameters, rules and effect, plus a fresh P-256 target key per OTP. The answer's
// otpEncryptionTargetBundle names that key, signed by the service's bundle signer, so the client's
// encryptOtpCodeToBundle(code, bundle, publicKey, <otpEncryptionBundleSignerPublicKey>) encrypts the
// code to it for verify_otp V2.
import { z } from 'zod';
import { createTargetKey, targetBundle } from '../../../otp/targetBundle.ts';
import type { ActivityHandler } from '../../handler.ts';
import { initOtpAuth, initOtpAuthParameters, initOtpAuthResultSchema, planOtpIssue } from './initOtpAuth.ts';
import { SERVICE_KEYS } from '../../lifecycle/serviceKeys.ts';

const resultSchema = initOtpAuthResultSchema.extend({
  otpEncryptionTargetBundle: z
    .string()
    .meta({ contentMediaType: 'application/json' })
    .describe(
      'JSON {enclaveQuorumPublic, dataSignature, data}, as the hosted service writes it: data is the hex of {"targetPublic": a fresh P-256 key for this OTP, "organizationId", "otpId"}, signed (DER) by the key enclaveQuorumPublic, which is otpEncryptionBundleSignerPublicKey of /.well-known/signet-keys.json. The client encrypts the code to targetPublic with encryptOtpCodeToBundle for verify_otp V2',
    ),
});
type InitOtpResult = z.infer<typeof resultSchema>;

export const initOtp: ActivityHandler<typeof initOtpAuthParameters, InitOtpResult> = {
  path: 'init_otp',
  activityType: 'ACTIVITY_TYPE_INIT_OTP_V3',
  resource: 'OTP',
  action: 'CREATE',
  reasons: ['OTP_RATE_LIMITED'],
  summary:
    "`init_otp_auth`'s parameters and rules; result `initOtpResultV2 {otpId, otpEncryptionTargetBundle}`, the key the client encrypts the code to ([OTP login](otp.md#otp-login-from-a-code-to-a-session))",
  parentMaySubmit: true,
  description:
    "The first step of the ecosystem's OTP login: `init_otp_auth`'s parameters, rules and message, and an `otpEncryptionTargetBundle` naming a fresh P-256 key for this OTP, to which the client encrypts the code for `verify_otp` V2.",
  intentKey: 'initOtpIntentV3',
  resultKey: 'initOtpResultV2',
  parameters: initOtpAuthParameters,
  resultSchema,
  example: initOtpAuth.example,

  async execute(context, intent) {
    const target = createTargetKey();
    const signer = await context.keys.get(SERVICE_KEYS.otpEncryptionBundle.purpose);
    const plan = await planOtpIssue(context, intent, target.privateKey);
    const { otpId } = plan.result;
    const otpEncryptionTargetBundle = targetBundle(
      { privateKey: signer.privateKey, publicKey: signer.publicKeyHex },
      // The library reads only targetPublic; the rest tells a reader which OTP the key belongs to.
      { publicKey: target.publicKey, extra: { organizationId: context.organizationId, otpId } },
    );
    return { ...plan, result: { otpId, otpEncryptionTargetBundle } };
  },
};
