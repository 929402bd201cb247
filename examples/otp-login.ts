// The OTP login end to end against a running Signet (`npm start`), with the ecosystem's own
// libraries and the development credentials that `npm start` writes: a user with an email address,
// init_otp, the code from the email, verify_otp with the code encrypted by the client, otp_login,
// then a request stamped with the session key. Run: npx tsx examples/otp-login.ts
//
// Which side does what in a real app: the backend holds the organization's API key (steps 1, 2, 5,
// 7); the user's browser or app holds the key pair that becomes the session key (steps 4, 6, 9).
import readline from 'node:readline/promises';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { encryptOtpCodeToBundle, generateP256KeyPair, verifyOtpVerificationToken, verifySessionJwtSignature } from '@turnkey/crypto';
import { Turnkey } from '@turnkey/sdk-server';
import { codeFromMailbox, findServer, run } from './devServer.ts';

run(async () => {
  const credentials = await findServer();
  const { baseUrl, organizationId } = credentials;

  // The backend's client, stamped with the organization's API key.
  const backend = new Turnkey({
    apiBaseUrl: baseUrl,
    apiPublicKey: credentials.apiPublicKey,
    apiPrivateKey: credentials.apiPrivateKey,
    defaultOrganizationId: organizationId,
  }).apiClient();

  // The keys everything Signet signs verifies with (the verifiers' `dangerouslyOverride…` argument).
  const keys = await (await fetch(`${baseUrl}/.well-known/signet-keys.json`)).json();

  // 1. The user, with the email address they log in with (once per user).
  const email = process.env.EXAMPLE_EMAIL ?? `alice+${Date.now()}@example.com`;
  const { userIds } = await backend.createUsers({
    users: [{ userName: 'Alice', userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
});
console.log('create_users: userId', userIds[0]);

// 2. Send a code; the answer names a fresh key the client encrypts the code to.
const { otpId, otpEncryptionTargetBundle } = await backend.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Example Wallet' });
console.log('init_otp: otpId', otpId);

// 3. The user types the code. Here it is read from the development mailbox (no SIGNET_SMTP_URL),
//    or asked for when it does not turn up there.
const code = (await codeFromMailbox(otpId))?.code ?? (await ask(`code sent to ${email}: `));

// 4. On the client: a key pair, and the code encrypted to the OTP's key together with its public key.
const clientKey = generateP256KeyPair();
const encryptedOtpBundle = await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);

// 5. Verify: the token names the contact and is bound to the client's key.
const { verificationToken } = await backend.verifyOtp({ otpId, encryptedOtpBundle });
const claims = await verifyOtpVerificationToken(verificationToken, keys.verificationTokenSignerPublicKey);
console.log('verify_otp: token for', claims.contact, 'bound to', claims.public_key);

// 6. On the client: sign the login with the key the token is bound to. This is the message
//    @turnkey/core's getClientSignatureMessageForLogin({verificationToken}) builds.
const message = JSON.stringify({ login: { publicKey: clientKey.publicKey }, tokenId: claims.id, type: 'USAGE_TYPE_LOGIN' });
const signature = await new ApiKeyStamper({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey }).sign(message, SignatureFormat.Raw);

// 7. Log in: the client's key becomes a session key of the user whose email was verified.
const { session } = await backend.otpLogin({
  verificationToken,
  publicKey: clientKey.publicKey,
  clientSignature: { publicKey: clientKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message, signature },
});

// 8. The session JWT verifies with Signet's session key.
console.log('otp_login: session verifies:', await verifySessionJwtSignature(session, keys.sessionSignerPublicKey));

// 9. The client stamps requests with the session key, as the user, until the session ends.
const asUser = new Turnkey({ apiBaseUrl: baseUrl, apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey, defaultOrganizationId: organizationId }).apiClient();
const { activities } = await asUser.getActivities({ paginationOptions: { limit: '3' } });
console.log('stamped with the session key: list_activities', activities.map((activity: { type: string }) => activity.type).join(', '));
});

async function ask(question: string): Promise<string> {
  const terminal = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await terminal.question(question)).trim();
  } finally {
    terminal.close();
  }
}
