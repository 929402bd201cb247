// A user's email address proven as docs/email.md says, so approval emails reach it: init_otp to the
// address, the code the SMTP sink received, verify_otp, and update_user_email with the token, by a
// client that may do those alone (a root of the organization).
import type { TurnkeyClient } from '@turnkey/http';
import { envelope } from './envelopes.ts';
import type { SmtpSink } from './smtpSink.ts';

export async function proveEmail(client: TurnkeyClient, smtp: SmtpSink, organizationId: string, userId: string, email: string): Promise<void> {
  const init = (await client.initOtp(envelope('ACTIVITY_TYPE_INIT_OTP_V3', organizationId, { otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Approvals' }) as any)) as any;
  const otpId = init.activity.result.initOtpResultV2.otpId;
  const verify = (await client.verifyOtp(envelope('ACTIVITY_TYPE_VERIFY_OTP', organizationId, { otpId, otpCode: await smtp.nextCodeTo(email) }) as any)) as any;
  const verificationToken = verify.activity.result.verifyOtpResult.verificationToken;
  await client.updateUserEmail(envelope('ACTIVITY_TYPE_UPDATE_USER_EMAIL', organizationId, { userId, userEmail: email, verificationToken }));
}
