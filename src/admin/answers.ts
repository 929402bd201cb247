// What the operator actions answer, as zod schemas: the admin functions return their types, the
// admin API's routes (src/http/adminApi.ts) answer them and the OpenAPI document describes them with
// these descriptions. A file of its own, light, so the command line can load the route declarations.
import { z } from 'zod';
import { CHANNELS, OUTBOX_STATUSES } from '../store/outbox.ts';
import { nullableTimestamp, timestamp, uuid } from '../wire/describedFields.ts';

const compressedKey = (description: string) => z.string().regex(/^0[23][0-9a-f]{64}$/).describe(`${description}: a compressed P-256 public key, hex (66 characters)`);

const createdKey = {
  apiKeyId: uuid('Identifier of the API key'),
  apiPublicKey: compressedKey('The public key that stamps'),
  apiPrivateKey: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe('The private key, hex: returned only when Signet generated the pair (no publicKey given), and never again'),
};

export const createdOrganization = z.strictObject({
  organizationId: uuid('Identifier of the new organization'),
  userId: uuid('Its first user'),
  ...createdKey,
});
export type CreatedOrganization = z.infer<typeof createdOrganization>;

/** An organization as the list of every organization shows it. */
export const listedOrganization = z.strictObject({
  organizationId: uuid('Identifier of the organization'),
  name: z.string().describe('Its name'),
  createdAt: timestamp('When it was created'),
  parentId: z.uuid().nullable().describe('Its parent, for a sub-organization; null for an organization that is none'),
  deletedAt: nullableTimestamp('When the sub-organization was deleted'),
});
export type ListedOrganization = z.infer<typeof listedOrganization>;

export const subOrganization = z.strictObject({
  organizationId: uuid('Identifier of the sub-organization'),
  name: z.string().describe('Its name'),
  createdAt: timestamp('When it was created'),
  deletedAt: nullableTimestamp('When it was deleted (its credentials revoked); null while it is live'),
});
export type SubOrganization = z.infer<typeof subOrganization>;

/** A user as the admin API shows it; a contact the user does not have is left out. */
export const adminUser = z
  .strictObject({
    userId: uuid('Identifier of the user'),
    userName: z.string().describe('Name of the user'),
    email: z.string().optional().describe('Email address, when the user has one'),
    phoneNumber: z.string().optional().describe('Phone number in E.164, when the user has one'),
    userTags: z.array(z.uuid()).describe("Ids of the user's tags (create_user_tag), in the order the tags were created"),
    createdAt: timestamp('When the user was created'),
    updatedAt: timestamp('When the user was last changed'),
  })
  .meta({ id: 'AdminUser', description: 'A user of the organization' });
export type AdminUser = z.infer<typeof adminUser>;

export const removedUser = z.strictObject({
  userId: uuid('The removed user'),
  removedAt: timestamp('When it was removed'),
  revokedApiKeys: z.number().int().min(0).describe('API keys and session keys revoked with it'),
  revokedAuthenticators: z.number().int().min(0).describe('Passkeys revoked with it'),
});
export type RemovedUser = z.infer<typeof removedUser>;

export const createdApiKey = z.strictObject({
  ...createdKey,
  expiresAt: timestamp('When the key expires; absent when it does not').optional(),
});
export type CreatedApiKey = z.infer<typeof createdApiKey>;

/** An API key as the admin API lists it; `kind` session for a key otp_login registered, otp_auth for one of otp_auth. */
export const listedApiKey = z.strictObject({
  apiKeyId: uuid('Identifier of the key'),
  userId: uuid('The user who holds it'),
  name: z.string().describe('Name of the key'),
  publicKey: compressedKey('The key'),
  kind: z.enum(['api_key', 'session', 'otp_auth', 'email_auth', 'recovery']).describe('api_key: made by the admin API, create_users, create_api_keys or org create; session: a session key of otp_login, stamp_login or create_read_write_session; otp_auth: a key of otp_auth; email_auth: a key of email_auth; recovery: the recovery key of init_user_email_recovery'),
  createdAt: timestamp('When it was registered'),
  expiresAt: nullableTimestamp('When it expires'),
  revokedAt: nullableTimestamp('When it was revoked'),
});
export type ListedApiKey = z.infer<typeof listedApiKey>;

export const revokedApiKey = z.strictObject({ apiKeyId: uuid('The revoked key'), revokedAt: timestamp('When it was revoked (it is refused from then on)') });
export type RevokedApiKey = z.infer<typeof revokedApiKey>;

export const senderDomain = z.strictObject({ senderDomainId: uuid('Identifier of the sender domain'), domain: z.string().describe('The domain, lower case') });
export type SenderDomain = z.infer<typeof senderDomain>;

export const listedSenderDomain = senderDomain.extend({ createdAt: timestamp('When it was registered') });
export type ListedSenderDomain = z.infer<typeof listedSenderDomain>;

export const emailTemplate = z
  .strictObject({
    templateId: uuid('Identifier of the template: init_otp_auth\'s emailCustomization.templateId'),
    organizationId: uuid('The organization'),
    name: z.string().describe('Name of the template'),
    subject: z.string().describe('Subject line template'),
    html: z.string().describe('HTML part template'),
    text: z.string().describe('Plain-text part template'),
    createdAt: timestamp('When the template was added'),
  })
  .meta({ id: 'EmailTemplate', description: 'An email template of the organization (Handlebars)' });
export type EmailTemplate = z.infer<typeof emailTemplate>;

export const removedEmailTemplate = z.strictObject({ templateId: uuid('The removed template') });
export type RemovedEmailTemplate = z.infer<typeof removedEmailTemplate>;

export const delivery = z.strictObject({
  outboxId: uuid('Identifier of the message'),
  otpId: z.uuid().nullable().describe('The OTP it carries; null for an approval email or a webhook event'),
  channel: z.enum(CHANNELS).describe('email or sms (an OTP), approval (an approval email) or webhook (an activity event)'),
  to: z.string().describe("The recipient: an email address, an E.164 phone number, or a webhook endpoint's URL when the message was queued"),
  status: z.enum(OUTBOX_STATUSES).describe('queued → sending → sent, or retrying and finally sent or failed'),
  attempts: z.number().int().min(0).describe('Delivery attempts made'),
  providerMessageId: z.string().nullable().describe("The provider's id: an email's Message-ID, Twilio's SM… sid, a webhook receiver's answer (HTTP 204)"),
  lastError: z.string().nullable().describe('The last error, saying whether it was permanent or the attempts ran out'),
  logoError: z.string().nullable().describe('Why an email went out without its logo'),
  createdAt: timestamp('When the message was queued'),
  updatedAt: timestamp('Its last change'),
  sentAt: nullableTimestamp('When it was sent'),
  nextAttemptAt: nullableTimestamp('When a queued or retrying message is due next'),
});
export type Delivery = z.infer<typeof delivery>;

export const webhookEndpointSummary = z.strictObject({
  endpointId: uuid('Identifier of the endpoint'),
  name: z.string().describe('Its name'),
  url: z.string().describe('Where its events are posted'),
  isActive: z.boolean().describe('Whether events are posted to it'),
  eventTypes: z.array(z.string()).describe('The event types it receives (its active subscriptions)'),
  createdAt: timestamp('When it was created'),
});
export type WebhookEndpointSummary = z.infer<typeof webhookEndpointSummary>;

export const webhookTest = z.strictObject({
  outboxId: uuid("The test event's message: its webhook-id header, and its line in `signet delivery list`"),
  endpointId: uuid('The endpoint'),
  url: z.string().describe('Where it was posted'),
  status: z.enum(OUTBOX_STATUSES).describe('sent (the receiver answered 2xx); retrying or failed (see lastError); queued or sending when no worker attempted it within 15 s'),
  attempts: z.number().int().min(0).describe('Attempts made so far'),
  receiverAnswer: z.string().nullable().describe("The receiver's answer when sent, e.g. HTTP 204"),
  lastError: z.string().nullable().describe('Why the attempt failed: the HTTP status, the network error, an address refused'),
});
export type WebhookTest = z.infer<typeof webhookTest>;

export const registeredAuthenticator = z.strictObject({
  authenticatorId: uuid('Identifier of the passkey'),
  credentialId: z.string().describe('Its WebAuthn credential id, base64url'),
});
export type RegisteredAuthenticator = z.infer<typeof registeredAuthenticator>;

/** What an auth proxy configuration's dedicated user needs the organization to allow: a policy to submit with create_policy. */
const proxyPolicy = z
  .strictObject({
    policyName: z.string().describe('A name for it'),
    effect: z.literal('EFFECT_ALLOW').describe('EFFECT_ALLOW'),
    condition: z.string().describe("The four activities the proxy submits: init_otp, verify_otp, otp_login and create_sub_organization"),
    consensus: z.string().describe('Approved by the proxy\'s user alone'),
  })
  .describe("The policy the organization's root quorum submits (create_policy, or `signet policy create`) to let the proxy act: until some policy allows its user, every proxy route is refused with REQUEST_NOT_AUTHORIZED");

/** An auth proxy configuration as the admin API shows it (never its key's private half). */
export const authProxyConfig = z.strictObject({
  configId: uuid('Identifier of the configuration: the X-Auth-Proxy-Config-ID header (@turnkey/core\'s authProxyConfigId)'),
  organizationId: uuid('The organization it acts in'),
  userId: uuid('Its dedicated user, whose API key stamps what the proxy submits'),
  apiKeyId: uuid('That user\'s API key'),
  allowedOrigins: z.array(z.string()).describe('The origins of the pages that may call the proxy\'s routes'),
  methods: z.array(z.enum(['email', 'sms', 'passkey', 'oauth'])).describe('The sign-up and login methods enabled'),
  appName: z.string().describe('The app name of the OTP messages'),
  otpLength: z.number().int().describe('Length of the OTP codes'),
  otpAlphanumeric: z.boolean().describe('Whether the codes are alphanumeric (else digits)'),
  otpExpirationSeconds: z.number().int().describe('How long a code is valid'),
  sessionSeconds: z.number().int().describe('The session length the wallet kit is told'),
  defaultWallet: z
    .strictObject({
      walletName: z.string().describe('Its name'),
      accounts: z.array(z.record(z.string(), z.string())).describe('Its accounts: {curve, pathFormat, path, addressFormat}'),
    })
    .nullable()
    .describe('The wallet a new sub-organization gets when the sign-up names none; null: none'),
  createdAt: timestamp('When it was created'),
});
export type AuthProxyConfigAnswer = z.infer<typeof authProxyConfig>;

export const createdAuthProxyConfig = authProxyConfig.extend({ policy: proxyPolicy });
export type CreatedAuthProxyConfig = z.infer<typeof createdAuthProxyConfig>;

export const deletedAuthProxyConfig = z.strictObject({
  configId: uuid('The deleted configuration'),
  removedUserId: uuid('Its dedicated user, removed with its API key revoked'),
});
export type DeletedAuthProxyConfig = z.infer<typeof deletedAuthProxyConfig>;
