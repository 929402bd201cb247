// Sign-up and login of an app's end user in their own sub-organization, against a running Signet
// (`npm start`), with the ecosystem's own libraries and the development credentials that `npm start`
// writes (the app's organization and its API key). Run: npx tsx examples/app-login.ts
//
// Which side does what in a real app: the backend holds the app's API key (steps 1, 2, 4, 5, 6); the
// user's browser or phone holds the key pair that becomes its session key, and signs with it (step 3,
// the client signatures, step 7).
import readline from 'node:readline/promises';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { encryptOtpCodeToBundle, generateP256KeyPair, verifySessionJwtSignature } from '@turnkey/crypto';
import { Turnkey } from '@turnkey/sdk-server';
import { codeFromMailbox, findServer, run } from './devServer.ts';

run(async () => {
  const credentials = await findServer();
  const { baseUrl, organizationId: appOrganizationId } = credentials;
  const keys = await (await fetch(`${baseUrl}/.well-known/signet-keys.json`)).json();

  // The backend's client, stamped with the app's API key: it acts in the app's organization and,
  // for the login activities and reads, in its sub-organizations.
  const backend = new Turnkey({
    apiBaseUrl: baseUrl,
    apiPublicKey: credentials.apiPublicKey,
    apiPrivateKey: credentials.apiPrivateKey,
    defaultOrganizationId: appOrganizationId,
  }).apiClient();

  const email = process.env.EXAMPLE_EMAIL ?? `alice+${Date.now()}@example.com`;

  // 1. Does this person have an account? A sub-organization whose user has the email, verified.
  const { organizationIds } = await backend.getVerifiedSubOrgIds({ filterType: 'EMAIL', filterValue: email });
  console.log('list_verified_suborgs:', organizationIds.length === 0 ? 'none yet' : organizationIds.join(', '));

  // 2. Send a code, from the app's organization (the person may have no account yet).
  const { otpId, otpEncryptionTargetBundle } = await backend.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Example Wallet' });

  // 3. On the client: the code the person types (here read from the development mailbox, or asked
  //    for), encrypted to the OTP's key together with the client's own public key.
  const code = (await codeFromMailbox(otpId))?.code ?? (await ask(`code sent to ${email}: `));
  const clientKey = generateP256KeyPair();
  const encryptedOtpBundle = await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);

  // 4. Verify the code in the app's organization: the token names the email.
  const { verificationToken } = await backend.verifyOtp({ otpId, encryptedOtpBundle });
  console.log('verify_otp: the email is verified');

  // On the client: what the holder of the token's key signs, for the sign-up and for the login
  // (the messages @turnkey/core's getClientSignatureMessageForSignup and …ForLogin build).
  const tokenId = JSON.parse(Buffer.from(verificationToken.split('.')[1]!, 'base64url').toString('utf8')).id;
  const signer = new ApiKeyStamper({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey });
  const clientSignature = async (usage: object) => {
    const message = JSON.stringify({ ...usage, tokenId, type: 'signup' in usage ? 'USAGE_TYPE_SIGNUP' : 'USAGE_TYPE_LOGIN' });
    const signature = await signer.sign(message, SignatureFormat.Raw);
    return { publicKey: clientKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256' as const, message, signature };
  };

  // 5. Sign-up, the first time: a sub-organization whose one root user is the person. The token (and
  //    the client's signature over what is signed up) marks the email verified there, so step 1
  //    finds it next time. No wallet: Signet keeps no keys.
  let subOrganizationId = organizationIds[0];
  if (!subOrganizationId) {
    ({ subOrganizationId } = await backend.createSubOrganization({
      subOrganizationName: `user ${email}`,
      rootUsers: [{ userName: email, userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
      rootQuorumThreshold: 1,
      verificationToken,
      clientSignature: await clientSignature({ signup: { email, apiKeys: [], authenticators: [], oauthProviders: [] } }),
    }));
    console.log('create_sub_organization:', subOrganizationId);
  }

  // 6. Log in to the person's sub-organization with the same token (used once to sign up, once to
  //    log in): the client's key becomes a session key there.
  const { session } = await backend.otpLogin({
    organizationId: subOrganizationId,
    verificationToken,
    publicKey: clientKey.publicKey,
    clientSignature: await clientSignature({ login: { publicKey: clientKey.publicKey } }),
  });
  console.log('otp_login: session verifies:', await verifySessionJwtSignature(session, keys.sessionSignerPublicKey));

  // 7. The client stamps with the session key, as the root user of its own sub-organization.
  const asUser = new Turnkey({
    apiBaseUrl: baseUrl,
    apiPublicKey: clientKey.publicKey,
    apiPrivateKey: clientKey.privateKey,
    defaultOrganizationId: subOrganizationId,
  }).apiClient();
  const me = await asUser.getWhoami({});
  const { user } = await asUser.getUser({ userId: me.userId });
  console.log(`whoami: ${me.username} in ${me.organizationId}; get_user: ${user.userEmail}`);
});

async function ask(question: string): Promise<string> {
  const terminal = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await terminal.question(question)).trim();
  } finally {
    terminal.close();
  }
}
