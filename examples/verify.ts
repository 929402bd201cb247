// Verifies a code that init_otp_auth sent (examples/submit.ts sends one), with the ecosystem's own
// client library, and checks the verification token against Signet's published keys.
//
//   npx tsx examples/verify.ts                 the newest code in the development mailbox
//   npx tsx examples/verify.ts OTP_ID          that OTP's code, from the development mailbox
//   npx tsx examples/verify.ts OTP_ID CODE     the code as the user typed it (with SMTP or SMS)
//
// With SIGNET_DATA_DIR set as for the server when it was started with another folder.
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { codeFromMailbox, fail, findServer, run } from './devServer.ts';

run(async () => {
  const [otpIdArgument, codeArgument, ...extra] = process.argv.slice(2);
  if (extra.length > 0 || (otpIdArgument !== undefined && !/^[0-9a-f-]{36}$/i.test(otpIdArgument))) {
    fail('usage: npx tsx examples/verify.ts [OTP_ID [CODE]]  (OTP_ID: the otpId init_otp_auth returned)');
  }
  const credentials = await findServer();

  const mailed = codeArgument === undefined ? await codeFromMailbox(otpIdArgument, 5000) : undefined;
  if (codeArgument === undefined && !mailed) {
    fail(
      `no email ${otpIdArgument ? `of OTP ${otpIdArgument} ` : ''}in the development mailbox (SIGNET_DATA_DIR/mail): ` +
        'send one with examples/submit.ts, or give the code: npx tsx examples/verify.ts OTP_ID CODE',
    );
  }
  const otpId = otpIdArgument ?? mailed!.otpId;
  const otpCode = codeArgument ?? mailed!.code;
  console.log(`verifying OTP ${otpId} with the code ${otpCode}`);

  const client = new TurnkeyClient(
    { baseUrl: credentials.baseUrl },
    new ApiKeyStamper({ apiPublicKey: credentials.apiPublicKey, apiPrivateKey: credentials.apiPrivateKey }),
  );
  // The code in clear: ACTIVITY_TYPE_VERIFY_OTP (@turnkey/http types this method for V2, whose code
  // is encrypted to init_otp's key: examples/otp-login.ts shows that form).
  const { activity } = await client.verifyOtp({
    type: 'ACTIVITY_TYPE_VERIFY_OTP',
    timestampMs: String(Date.now()),
    organizationId: credentials.organizationId,
    parameters: { otpId, otpCode },
  } as unknown as Parameters<typeof client.verifyOtp>[0]);
  const token = (activity.result as { verifyOtpResult?: { verificationToken?: string } }).verifyOtpResult?.verificationToken;
  if (!token) fail(`verify_otp answered ${activity.status} without a token`);
  console.log('verify_otp:', activity.status);

  // Any JOSE library checks the token against the keys Signet publishes.
  const jwks = createRemoteJWKSet(new URL(`${credentials.baseUrl}/.well-known/jwks.json`));
  const { payload } = await jwtVerify(token, jwks, { issuer: 'signet', algorithms: ['ES256'] });
  console.log(`token verified: ${payload.contact} (organization ${payload.organization_id}), valid until ${new Date(payload.exp! * 1000).toISOString()}`);
});
