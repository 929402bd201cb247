// The auth proxy's routes, declared once: the last segment of each path (POST /v1/<name>), what it
// does, the body it takes and what it answers. http/authProxyRoutes.ts serves them and
// http/openapi.ts documents them.
import { z } from 'zod';
import { notImplementedOauth2, type AuthProxy, type ProxyCall } from './authProxy.ts';
import { accountBody, emptyBody, initOtpBody, oauthLoginBody, otpLoginBody, signupBody, verifyOtpBody } from './requests.ts';

export interface AuthProxyRoute {
  name: string;
  summary: string;
  body: z.ZodType;
  answer: z.ZodType;
  serve(proxy: AuthProxy, call: ProxyCall): object | Promise<object>;
}

const uuid = (description: string) => z.uuid().describe(description);

export const AUTH_PROXY_ROUTES: readonly AuthProxyRoute[] = [
  {
    name: 'otp_init_v2',
    summary: "init_otp for the contact in the configuration's organization, with its app name and code settings; the code is sent by email or SMS",
    body: initOtpBody,
    answer: z.strictObject({
      otpId: uuid('The OTP, for /v1/otp_verify_v2'),
      otpEncryptionTargetBundle: z.string().describe("The key to encrypt the code to, signed by Signet's otpEncryptionBundleSignerPublicKey"),
    }),
    serve: (proxy, call) => proxy.initOtp(call),
  },
  {
    name: 'otp_verify_v2',
    summary: "verify_otp V2 of the code encrypted to the otpEncryptionTargetBundle (with Signet's otpEncryptionBundleSignerPublicKey)",
    body: verifyOtpBody,
    answer: z.strictObject({ verificationToken: z.string().describe('Signed by Signet: proves the contact, bound to the client\'s key') }),
    serve: (proxy, call) => proxy.verifyOtp(call),
  },
  {
    name: 'otp_login_v2',
    summary: "otp_login in the sub-organization of the token's contact (or organizationId, one of the configuration's organization's): a session as long as the configuration says",
    body: otpLoginBody,
    answer: z.strictObject({ session: z.string().describe("The session JWT, signed by Signet's sessionSignerPublicKey") }),
    serve: (proxy, call) => proxy.otpLogin(call),
  },
  {
    name: 'signup_v2',
    summary:
      "create_sub_organization in the configuration's organization: one root user with the contacts (proven by verificationToken), API keys and passkeys given, and the wallet given or the configuration's default one",
    body: signupBody,
    answer: z.strictObject({
      organizationId: uuid('The new sub-organization'),
      userId: uuid('Its root user'),
      wallet: z
        .strictObject({ walletId: uuid('The wallet'), addresses: z.array(z.string()).describe('The address of each account') })
        .describe('The wallet made with it, when there is one')
        .optional(),
      appProofs: z.array(z.unknown()).describe("App Proofs of the sub-organization's creation").optional(),
    }),
    serve: (proxy, call) => proxy.signup(call),
  },
  {
    name: 'account',
    summary: 'The sub-organization of an email address or phone number (proven by verificationToken), a passkey credential id or an API key public key; {} when none',
    body: accountBody,
    answer: z.strictObject({ organizationId: uuid('The sub-organization found; absent when none').optional() }),
    serve: (proxy, call) => proxy.account(call),
  },
  {
    name: 'wallet_kit_config',
    summary: 'The methods the configuration enables, its session length and OTP settings, as the wallet kit reads them',
    body: emptyBody,
    answer: z.strictObject({
      enabledProviders: z.array(z.string()).describe('The methods enabled: email, sms, passkey'),
      sessionExpirationSeconds: z.string().describe('The session length, in seconds'),
      organizationId: uuid("The configuration's organization"),
      otpAlphanumeric: z.boolean().describe('Whether the codes are alphanumeric'),
      otpLength: z.string().describe('The length of the codes'),
    }),
    serve: (proxy, call) => proxy.walletKitConfig(call),
  },
  {
    name: 'wallet_kit_client_params',
    summary: 'The client parameters: {} (Signet asks for no captcha, so there is no Turnstile site key)',
    body: emptyBody,
    answer: z.strictObject({}),
    serve: (proxy, call) => proxy.walletKitClientParams(call),
  },
  {
    name: 'oauth_login',
    summary: "oauth_login in the sub-organization whose user the id token's identity is bound to (or `organizationId`): {session}",
    body: oauthLoginBody,
    answer: z.strictObject({ session: z.string().describe('The session JWT Signet signed') }),
    serve: (proxy, call) => proxy.oauthLogin(call),
  },
  {
    name: 'oauth2_authenticate',
    summary: 'Not served (501): OAuth 2.0 code exchange (X, Discord) needs each provider\'s client secret; log in with an OpenID Connect id token (oauth_login)',
    body: z.record(z.string(), z.unknown()),
    answer: z.strictObject({}),
    serve: () => {
      throw notImplementedOauth2();
    },
  },
];
