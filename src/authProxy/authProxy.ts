// The auth proxy: what a page with no backend of its own calls (@turnkey/core's authProxyUrl) to send
// and verify OTP codes, sign its users up into sub-organizations and log them in. Each call names a
// configuration (X-Auth-Proxy-Config-ID) of one organization, and is done as that configuration's
// dedicated user: a real activity (init_otp, verify_otp, otp_login, create_sub_organization), its body
// stamped with the user's API key and submitted through the one lifecycle, so the organization's root
// quorum and policies decide it as they decide any; a read (the account of a contact) is the
// list_suborgs query run as that user. Nothing here reaches past what that user may do.
import type { KeyObject } from 'node:crypto';
import type { z } from 'zod';
import type { ActivityHandler } from '../activities/handler.ts';
import { envelopeOf } from '../activities/lifecycle/intake.ts';
import type { ActivityPipeline } from '../activities/lifecycle/pipeline.ts';
import { VERIFICATION_TOKEN_KEY, readVerificationToken } from '../otp/verificationToken.ts';
import { canonicalEmailAddress, normalizePhoneNumber } from '../otp/contact.ts';
import { parseStamp, type Stamp } from '../auth/parseStamp.ts';
import type { Principal } from '../auth/principal.ts';
import { invalidField, notFound, permissionDenied, requestNotAuthorized, resourceExhausted, SignetError } from '../errors.ts';
import { apiKeyStamp, p256PrivateKey } from '../keys/apiKeyStamp.ts';
import type { KeyEncryptionKey } from '../keys/custody/keyEncryptionKey.ts';
import { openKeyMaterial } from '../keys/custody/sealKeyMaterial.ts';
import { queryContext } from '../queries/query.ts';
import { getSubOrgIds } from '../queries/subOrganizations.ts';
import { anyAuthProxyConfigAllows, AUTH_PROXY_API_KEY, findAuthProxyConfig, type AuthProxyConfig } from '../store/authProxyConfigs.ts';
import type { Database } from '../store/db.ts';
import { takeRateWindow, type RateLimit } from '../store/rateWindows.ts';
import type { Clock } from '../wire/clock.ts';
import { parseBody } from '../wire/jsonDocument.ts';
import { schemaError } from '../wire/violations.ts';
import { accountBody, ACCOUNT_FILTERS, emptyBody, initOtpBody, oauthLoginBody, otpLoginBody, signupBody, verifyOtpBody } from './requests.ts';

/** The header that names the configuration. */
export const CONFIG_HEADER = 'X-Auth-Proxy-Config-ID';

/** How many proxy requests one client address may make per configuration, and OTPs one contact may be sent. */
export const AUTH_PROXY_LIMITS: { perAddress: RateLimit; perContact: RateLimit } = {
  perAddress: { count: 30, windowSeconds: 60 },
  perContact: { count: 5, windowSeconds: 600 },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AuthProxyDependencies {
  db: Database;
  kek: KeyEncryptionKey;
  pipeline: ActivityPipeline;
  handlers: readonly ActivityHandler[];
  /** The stamp check every stamped request passes: the principal of the body's stamp in its organization. */
  principalOf(body: Buffer, stamp: Stamp, organizationId: string): Promise<Principal>;
  clock: Clock;
}

/** What each route is given: the configuration and the body as received. */
export interface ProxyCall {
  config: AuthProxyConfig;
  body: Buffer;
}

export class AuthProxy {
  private readonly signers = new Map<string, Promise<KeyObject>>();

  constructor(private readonly deps: AuthProxyDependencies) {}

  /** The configuration the header names: 400 when it is missing or no id, 404 when there is none. */
  async config(header: string | string[] | undefined): Promise<AuthProxyConfig> {
    const id = Array.isArray(header) ? header[0] : header;
    if (id === undefined || id === '') {
      throw invalidField(CONFIG_HEADER, 'is required: the id of the auth proxy configuration (@turnkey/core\'s authProxyConfigId; `signet authproxy list` shows them)');
    }
    if (!UUID.test(id)) throw invalidField(CONFIG_HEADER, 'must be the id (a UUID) of an auth proxy configuration');
    const config = await findAuthProxyConfig(this.deps.db, id);
    if (!config) throw notFound('AUTH_PROXY_CONFIG_NOT_FOUND', `no auth proxy configuration ${id}; the operator lists them with \`signet authproxy list\``);
    return config;
  }

  /** Whether some configuration allows pages of this origin (a preflight names no configuration). */
  anyConfigAllows(origin: string): Promise<boolean> {
    return origin.length > 300 ? Promise.resolve(false) : anyAuthProxyConfigAllows(this.deps.db, origin);
  }

  /** One request of a client address to a configuration, counted: 429 past the limit. */
  async countAddress(config: AuthProxyConfig, clientAddress: string): Promise<void> {
    await this.take(`authproxy:${config.id}:address:${clientAddress}`, AUTH_PROXY_LIMITS.perAddress, 'from this client address');
  }

  /** init_otp for the contact, in the configuration's organization: {otpId, otpEncryptionTargetBundle}. */
  async initOtp({ config, body }: ProxyCall): Promise<object> {
    const request = parsed(initOtpBody, body);
    enabled(config, request.otpType === 'OTP_TYPE_EMAIL' ? 'email' : 'sms');
    const contact = request.otpType === 'OTP_TYPE_EMAIL' ? canonicalEmailAddress(request.contact) : (phoneOf(request.contact) ?? request.contact);
    await this.take(`authproxy:${config.id}:contact:${contact}`, AUTH_PROXY_LIMITS.perContact, 'for this contact');
    const { otpSettings } = config;
    const result = await this.submit(config, 'ACTIVITY_TYPE_INIT_OTP_V3', config.organizationId, {
      otpType: request.otpType,
      contact: request.contact,
      appName: otpSettings.appName,
      otpLength: otpSettings.otpLength,
      alphanumeric: otpSettings.alphanumeric,
      expirationSeconds: String(otpSettings.expirationSeconds),
      ...(request.emailCustomization?.templateId ? { emailCustomization: { templateId: request.emailCustomization.templateId } } : {}),
    });
    return { otpId: result.otpId, otpEncryptionTargetBundle: result.otpEncryptionTargetBundle };
  }

  /** verify_otp V2 of the encrypted bundle: {verificationToken}. */
  async verifyOtp({ config, body }: ProxyCall): Promise<object> {
    const request = parsed(verifyOtpBody, body);
    const result = await this.submit(config, 'ACTIVITY_TYPE_VERIFY_OTP_V2', config.organizationId, {
      otpId: request.otpId,
      encryptedOtpBundle: request.encryptedOtpBundle,
    });
    return { verificationToken: result.verificationToken };
  }

  /**
   * otp_login in the sub-organization of the token's contact (or the one named, a sub-organization of
   * the configuration's organization), the session as long as the configuration says: {session}.
   */
  async otpLogin({ config, body }: ProxyCall): Promise<object> {
    const request = parsed(otpLoginBody, body);
    const claims = await this.token(config, request.verificationToken, 'verificationToken');
    enabled(config, claims.verificationType === 'OTP_TYPE_SMS' ? 'sms' : 'email');
    const organizationId = request.organizationId ?? (await this.accountOf(config, claims.verificationType === 'OTP_TYPE_SMS' ? 'PHONE_NUMBER' : 'EMAIL', claims.contact));
    if (organizationId === undefined) {
      throw notFound('ORGANIZATION_NOT_FOUND', `no sub-organization of ${config.organizationId} has a user with this contact; sign up first (/v1/signup_v2)`);
    }
    const result = await this.submit(config, 'ACTIVITY_TYPE_OTP_LOGIN_V2', organizationId, {
      verificationToken: request.verificationToken,
      publicKey: request.publicKey,
      clientSignature: request.clientSignature,
      expirationSeconds: String(config.sessionSeconds),
      ...(request.invalidateExisting !== undefined ? { invalidateExisting: request.invalidateExisting } : {}),
    });
    return { session: result.session };
  }

  /**
   * oauth_login in the sub-organization whose user the id token's identity is bound to (or the one
   * named, a sub-organization of the configuration's organization), the session as long as the
   * configuration says: {session}. The token is verified by the activity (issuer, signature,
   * audience, expiry, its nonce the SHA-256 of publicKey).
   */
  async oauthLogin({ config, body }: ProxyCall): Promise<object> {
    const request = parsed(oauthLoginBody, body);
    enabled(config, 'oauth');
    const organizationId = request.organizationId ?? (await this.accountOf(config, 'OIDC_TOKEN', request.oidcToken));
    if (organizationId === undefined) {
      throw notFound('ORGANIZATION_NOT_FOUND', `no sub-organization of ${config.organizationId} has a user bound to this identity; sign up first (/v1/signup_v2 with oauthProviders)`);
    }
    const result = await this.submit(config, 'ACTIVITY_TYPE_OAUTH_LOGIN', organizationId, {
      oidcToken: request.oidcToken,
      publicKey: request.publicKey,
      expirationSeconds: String(config.sessionSeconds),
      ...(request.invalidateExisting !== undefined ? { invalidateExisting: request.invalidateExisting } : {}),
    });
    return { session: result.session };
  }

  /**
   * create_sub_organization in the configuration's organization: one root user with the contacts,
   * keys and passkeys given, the wallet given or the configuration's default one.
   * {organizationId, userId, wallet?, appProofs?}.
   */
  async signup({ config, body }: ProxyCall): Promise<object> {
    const request = parsed(signupBody, body);
    if (request.authenticators.length > 0) enabled(config, 'passkey');
    if (request.oauthProviders.length > 0) enabled(config, 'oauth');
    if (request.verificationToken !== undefined) {
      const claims = await this.token(config, request.verificationToken, 'verificationToken');
      enabled(config, claims.verificationType === 'OTP_TYPE_SMS' ? 'sms' : 'email');
    } else if (request.userEmail || request.userPhoneNumber) {
      // A contact nobody proved would let anyone take another's address.
      throw invalidField('verificationToken', 'is required with userEmail or userPhoneNumber: verify the contact first (/v1/otp_init_v2, /v1/otp_verify_v2)');
    }
    if (request.verificationToken === undefined && request.authenticators.length === 0 && request.oauthProviders.length === 0) {
      // API keys alone (a wallet's sign-up) would let anyone make sub-organizations at will.
      throw permissionDenied(
        'AUTH_PROXY_METHOD_DISABLED',
        'a sign-up through the auth proxy proves a contact (verificationToken), registers a passkey (authenticators) or binds an OpenID Connect identity (oauthProviders); it has no sign-up with API keys alone',
      );
    }
    if (request.userTag !== undefined) throw invalidField('userTag', 'Signet does not tag the users of a sign-up; leave it out');
    const wallet = request.wallet ?? config.signupDefaults.wallet;
    const rootUser = {
      userName: request.userName || request.userEmail || request.userPhoneNumber || 'user',
      ...(request.userEmail ? { userEmail: request.userEmail } : {}),
      ...(request.userPhoneNumber ? { userPhoneNumber: request.userPhoneNumber } : {}),
      apiKeys: request.apiKeys,
      authenticators: request.authenticators,
      oauthProviders: request.oauthProviders,
    };
    const { result, appProofs } = await this.submitWithProofs(config, 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', config.organizationId, {
      subOrganizationName: request.organizationName || `sub-org ${this.deps.clock().toISOString()}`,
      rootUsers: [rootUser],
      rootQuorumThreshold: 1,
      ...(wallet !== undefined ? { wallet } : {}),
      ...(request.verificationToken !== undefined ? { verificationToken: request.verificationToken } : {}),
      ...(request.clientSignature !== undefined ? { clientSignature: request.clientSignature } : {}),
    });
    const rootUserIds = result.rootUserIds as string[];
    return {
      organizationId: result.subOrganizationId,
      userId: rootUserIds[0],
      ...(result.wallet ? { wallet: result.wallet } : {}),
      ...(appProofs.length > 0 ? { appProofs } : {}),
    };
  }

  /**
   * The sub-organization of a contact (proven by a verification token of the configuration's
   * organization), a passkey's credential id or an API key: {organizationId}, or {} when none.
   */
  async account({ config, body }: ProxyCall): Promise<object> {
    const request = parsed(accountBody, body);
    if (request.filterType === 'OIDC_TOKEN') enabled(config, 'oauth');
    let value = request.filterValue;
    if (request.filterType === 'EMAIL' || request.filterType === 'PHONE_NUMBER') {
      // An address is personal: only whoever proved it may learn whether it has an account.
      if (request.verificationToken === undefined) {
        throw invalidField('verificationToken', `is required with filterType ${request.filterType}: the token of /v1/otp_verify_v2 for that contact`);
      }
      const claims = await this.token(config, request.verificationToken, 'verificationToken');
      const email = request.filterType === 'EMAIL';
      value = email ? canonicalEmailAddress(value) : (phoneOf(value) ?? value);
      const proven = claims.verificationType === 'OTP_TYPE_SMS' ? (phoneOf(claims.contact) ?? claims.contact) : canonicalEmailAddress(claims.contact);
      if (email !== (claims.verificationType !== 'OTP_TYPE_SMS') || proven !== value) {
        throw invalidField('verificationToken', 'was issued for another contact than filterValue');
      }
    }
    const organizationId = await this.accountOf(config, request.filterType, value);
    return organizationId === undefined ? {} : { organizationId };
  }

  /** The enabled methods and session length, as the wallet kit reads them. */
  walletKitConfig({ config, body }: ProxyCall): object {
    parsedOrEmpty(body);
    return {
      enabledProviders: config.methods,
      sessionExpirationSeconds: String(config.sessionSeconds),
      organizationId: config.organizationId,
      otpAlphanumeric: config.otpSettings.alphanumeric,
      otpLength: String(config.otpSettings.otpLength),
    };
  }

  /** The client's parameters: Signet asks for no captcha, so there is no Turnstile site key. */
  walletKitClientParams({ body }: ProxyCall): object {
    parsedOrEmpty(body);
    return {};
  }

  /** The sub-organization (newest first) whose user or credential matches, as list_suborgs finds it. */
  private async accountOf(config: AuthProxyConfig, filterType: (typeof ACCOUNT_FILTERS)[number], filterValue: string): Promise<string | undefined> {
    const document = { organizationId: config.organizationId, filterType, filterValue, paginationOptions: { limit: '1' } };
    const { body, principal } = await this.stamped(config, config.organizationId, document);
    const parsedQuery = getSubOrgIds.request.safeParse(parseBody(body));
    if (!parsedQuery.success) throw schemaError(parsedQuery.error, '', 'invalid account lookup');
    const answer = (await getSubOrgIds.run(
      queryContext(this.deps.db, principal, this.deps.clock(), this.deps.pipeline),
      parsedQuery.data,
    )) as { organizationIds: string[] };
    return answer.organizationIds[0];
  }

  /** The claims of a verification token Signet issued in the configuration's organization, or a 400 naming the field. */
  private async token(config: AuthProxyConfig, token: string, field: string) {
    const reading = readVerificationToken(token, await this.deps.pipeline.keys.verifiers(VERIFICATION_TOKEN_KEY), this.deps.clock());
    if ('problem' in reading) throw invalidField(field, reading.problem);
    if (reading.claims.organizationId.toLowerCase() !== config.organizationId.toLowerCase()) {
      throw invalidField(field, `was issued in organization ${reading.claims.organizationId}, not this configuration's; verify the code through this proxy`);
    }
    return reading.claims;
  }

  private async take(scope: string, limit: RateLimit, what: string): Promise<void> {
    const retryAfter = await takeRateWindow(this.deps.db, scope, limit);
    if (retryAfter !== undefined) {
      throw resourceExhausted('AUTH_PROXY_RATE_LIMITED', `too many auth proxy requests ${what} (at most ${limit.count} in ${limit.windowSeconds} s); retry in ${retryAfter} s`, retryAfter);
    }
  }

  /** The activity's result when it completed; what refused it otherwise. */
  private async submit(config: AuthProxyConfig, type: string, organizationId: string, parameters: object): Promise<Record<string, any>> {
    return (await this.submitWithProofs(config, type, organizationId, parameters)).result;
  }

  private async submitWithProofs(config: AuthProxyConfig, type: string, organizationId: string, parameters: object): Promise<{ result: Record<string, any>; appProofs: unknown[] }> {
    const handlers = this.deps.handlers.filter((handler) => handler.activityType === type);
    const document = { type, timestampMs: String(this.deps.clock().getTime()), organizationId, parameters, generateAppProofs: true };
    const { body, principal, stampHeader } = await this.stamped(config, organizationId, document);
    const parsedDocument = parseBody(body);
    const { envelope, handler } = envelopeOf(handlers, parsedDocument);
    const outcome = await this.deps.pipeline.submit(handler, { body, document: parsedDocument, envelope, principal, stampHeader });
    const activity = (JSON.parse(outcome.json) as { activity: { id: string; status: string; result?: Record<string, any>; appProofs?: unknown[] } }).activity;
    if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') {
      throw requestNotAuthorized(
        `the ${type} the auth proxy submitted (activity ${activity.id}) is ${activity.status}: the organization's root quorum and policies must allow the proxy's user alone; see \`signet authproxy create\`'s policy`,
      );
    }
    return { result: activity.result?.[handler.resultKey] ?? {}, appProofs: activity.appProofs ?? [] };
  }

  /** The document as bytes, stamped by the configuration's user, and that user as the stamp check finds it. */
  private async stamped(config: AuthProxyConfig, organizationId: string, document: object): Promise<{ body: Buffer; principal: Principal; stampHeader: string }> {
    const body = Buffer.from(JSON.stringify(document), 'utf8');
    const stampHeader = apiKeyStamp(body, await this.signer(config), config.apiPublicKey);
    const stamp = parseStamp({ 'x-stamp': stampHeader });
    const principal = await this.deps.principalOf(body, stamp, organizationId);
    return { body, principal, stampHeader };
  }

  /** The user's private key, opened once per sealed value (the configuration's row is read on every request). */
  private signer(config: AuthProxyConfig): Promise<KeyObject> {
    const cacheKey = `${config.id}:${config.sealedApiPrivateKey}`;
    let signer = this.signers.get(cacheKey);
    if (!signer) {
      signer = openKeyMaterial(this.deps.kek, { organizationId: config.organizationId, rowId: config.id, kind: AUTH_PROXY_API_KEY }, config.sealedApiPrivateKey).then((scalar) => {
        try {
          return p256PrivateKey(scalar);
        } finally {
          scalar.fill(0);
        }
      });
      signer.catch(() => this.signers.delete(cacheKey));
      if (this.signers.size >= 1000) this.signers.clear();
      this.signers.set(cacheKey, signer);
    }
    return signer;
  }
}

/** The route is for a method the configuration does not enable: 403. */
function enabled(config: AuthProxyConfig, method: string): void {
  if (!config.methods.includes(method)) {
    throw permissionDenied('AUTH_PROXY_METHOD_DISABLED', `the auth proxy configuration ${config.id} does not enable ${method} (it enables ${config.methods.join(', ') || 'nothing'})`);
  }
}

/** The 501 of OAuth 2.0 code exchange (X, Discord), which needs each provider's client secret: not served. */
export function notImplementedOauth2(): SignetError {
  return new SignetError(
    'NOT_IMPLEMENTED',
    "OAuth 2.0 code exchange (oauth2_authenticate: X, Discord) is not served by Signet's auth proxy; log in with an OpenID Connect provider's id token (/v1/oauth_login)",
  );
}

function phoneOf(text: string): string | undefined {
  const phone = normalizePhoneNumber(text);
  return 'e164' in phone ? phone.e164 : undefined;
}

function parsed<S extends z.ZodType>(schema: S, body: Buffer): z.output<S> {
  const result = schema.safeParse(parseBody(body), { reportInput: true });
  if (!result.success) throw schemaError(result.error, '', 'invalid auth proxy request');
  return result.data;
}

function parsedOrEmpty(body: Buffer): void {
  if (body.length > 0) parsed(emptyBody, body);
}
