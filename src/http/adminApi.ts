// The admin API (/admin/v1), each route declared once: its method and path, the schemas of its
// query, body and answer (their descriptions are the OpenAPI document's), what its 404 means, and
// the signet command that calls it, with where each flag goes in the request and what it prints.
// adminRoutes.ts serves the routes, openapi.ts documents them and cli/commands.ts makes the admin
// commands of them. Nothing here imports Fastify, so the command line loads it.
import { z } from 'zod';
import { rootQuorumParameters, rootQuorumSchema } from '../activities/handlers/policies/updateRootQuorum.ts';
import {
  adminUser,
  authProxyConfig,
  createdAuthProxyConfig,
  deletedAuthProxyConfig,
  createdApiKey,
  createdOrganization,
  delivery,
  emailTemplate,
  listedApiKey,
  listedOrganization,
  listedSenderDomain,
  registeredAuthenticator,
  removedEmailTemplate,
  removedUser,
  revokedApiKey,
  senderDomain,
  subOrganization,
  webhookEndpointSummary,
  webhookTest,
} from '../admin/answers.ts';
import { deliveryFilter } from '../admin/deliveries.ts';
import { DEFAULT_WALLET_FORMATS } from '../admin/authProxyConfigs.ts';
import { P256_PUBLIC_KEY_PATTERN } from '../keys/p256.ts';
import { MAX_EMAIL_LENGTH, MAX_PHONE_INPUT_LENGTH } from '../otp/contactLimits.ts';
import { TEMPLATE_LIMITS } from '../otp/templateLimits.ts';
import { wholeNumberPattern } from '../wire/numberPattern.ts';

export const ADMIN_PREFIX = '/admin/v1';

const name = z.string().trim().min(1).max(256);
const uuid = z.uuid({ message: 'must be a UUID' });
const publicKey = z.string().max(130).meta({
  pattern: P256_PUBLIC_KEY_PATTERN,
  description: 'A P-256 public key in hex (compressed or uncompressed) whose private key you hold: registered instead of a generated pair, and no apiPrivateKey is returned',
});

/** The bodies of the admin routes, and the query of the deliveries. */
export const adminSchemas = {
  organization: z.strictObject({
    name: name.describe('Name of the organization'),
    userName: name.describe('Name of its first user; "root" by default').optional(),
    apiKeyName: name.describe('Name of the first user\'s API key; "root key" by default').optional(),
    publicKey: publicKey.optional(),
  }),
  // The contacts are checked by the rules of init_otp_auth's contact (admin/users.ts), which bound them.
  user: z.strictObject({
    userName: name.describe('Name of the user; defaults to the email, else the phone number, else "user"').optional(),
    email: z
      .string()
      .meta({ maxLength: MAX_EMAIL_LENGTH })
      .describe("Email address of the user, by which an OTP login finds it: checked like init_otp_auth's contact and stored in lowercase as it is (every spelling of an address is one contact); unique among the organization's users not removed")
      .optional(),
    phoneNumber: z
      .string()
      .meta({ maxLength: MAX_PHONE_INPUT_LENGTH })
      .describe("Phone number of the user in international form (+ and country code), stored in E.164; unique among the organization's users not removed")
      .optional(),
  }),
  apiKey: z.strictObject({
    userId: uuid.describe('The user of the organization who holds the key'),
    name: name.describe('Name of the API key').optional(),
    expiresInSeconds: z
      .number()
      .int()
      .min(1)
      .max(10 * 365 * 24 * 3600)
      .describe('Lifetime of the key in seconds, at most ten years; without it the key does not expire')
      .optional(),
    publicKey: publicKey.optional(),
  }),
  // The rules of update_root_quorum's parameters; each user is checked against the organization by admin/rootQuorums.ts.
  rootQuorum: rootQuorumParameters,
  senderDomain: z.strictObject({
    domain: z.string().max(253).describe('A domain name such as mail.example.com (stored in lower case): init_otp_auth\'s sendFromEmailAddress may then be on it'),
  }),
  emailTemplate: z.strictObject({
    name: name.describe('Name of the template').optional(),
    subject: z.string().max(TEMPLATE_LIMITS.subject).describe(`Subject line, a Handlebars template (e.g. "Your {{appName}} code"); not empty, at most ${TEMPLATE_LIMITS.subject} bytes`),
    html: z
      .string()
      .max(TEMPLATE_LIMITS.html)
      .describe(`HTML part, a Handlebars template that must show {{otpCode}} or {{magicLink}}; no raw output ({{{…}}}), partials or custom helpers; at most ${TEMPLATE_LIMITS.html} bytes`),
    text: z.string().max(TEMPLATE_LIMITS.text).describe(`Plain-text part, a Handlebars template; not empty, at most ${TEMPLATE_LIMITS.text} bytes`),
  }),
  deliveries: deliveryFilter,
  // Origins and methods are checked by admin/authProxyConfigs.ts, which names the field at fault.
  authProxyConfig: z.strictObject({
    allowedOrigins: z
      .array(z.string().max(300))
      .min(1, 'must list at least one origin')
      .max(20, 'may list at most 20 origins')
      .describe('The origins (scheme, host, port) of the pages that may call the proxy: its routes answer CORS for these only'),
    methods: z
      .string()
      .max(100)
      .describe('The sign-up and login methods enabled, comma-separated: otp (email and sms), email, sms, passkey, oauth; "otp,passkey" by default')
      .optional(),
    appName: z.string().trim().min(1).max(64).describe('The app name of the OTP messages; the first origin\'s host by default').optional(),
    otpLength: z.number().int().min(6).max(9).describe('Length of the OTP codes, 6 to 9; 6 by default').optional(),
    otpAlphabet: z.enum(['alphanumeric', 'numeric']).describe('alphanumeric or numeric codes; numeric by default').optional(),
    otpExpirationSeconds: z.number().int().min(60).max(600).describe('How long a code is valid, 60 to 600 seconds; 300 by default').optional(),
    sessionSeconds: z
      .number()
      .int()
      .min(60)
      .max(30 * 24 * 3600)
      .describe('The session length the wallet kit is told (wallet_kit_config), 60 s to 30 days; 900 by default')
      .optional(),
    walletName: name.describe('The name of the wallet a new sub-organization gets when its sign-up names none; none by default').optional(),
    walletAccounts: z
      .array(z.enum(DEFAULT_WALLET_FORMATS as [string, ...string[]]))
      .max(4)
      .describe(`The accounts of that wallet, by address format (${DEFAULT_WALLET_FORMATS.join(', ')}): each the first account on its chain's usual path`)
      .optional(),
  }),
  authenticator: z.strictObject({
    name: name.describe('Name of the passkey'),
    /** base64url challenge the registration ceremony used. */
    challenge: z.string().min(16).max(1024).describe('The challenge the registration was made with, base64url (the browser SDK\'s encodedChallenge)'),
    attestation: z
      .record(z.string(), z.unknown())
      .describe(
        'The WebAuthn registration response: the W3C JSON of PublicKeyCredential.toJSON() ({id, rawId, type, response: {clientDataJSON, attestationObject, transports}}), or the attestation of the ecosystem\'s browser SDK ({credentialId, clientDataJson, attestationObject, transports}); verified before it is stored',
      ),
  }),
};

/** The items an admin list answers when ?limit= is not given. */
export const ADMIN_PAGE_DEFAULT = 50;

/** ?limit=&before=&after= of the admin lists: newest first, id cursors, like the public lists' paginationOptions. */
const adminPage = z.strictObject({
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, 'must be a whole number from 1 to 500')
    .refine((n) => Number(n) <= 500, 'must be a whole number from 1 to 500')
    .meta({ pattern: wholeNumberPattern(500), description: 'At most this many items, a whole number from 1 to 500; 50 by default. A page also ends early before about 8 MiB' })
    .optional(),
  before: uuid.describe('Cursor: the first id of a page, for the page before it (newer items)').optional(),
  after: uuid.describe('Cursor: the last id of a page, for the next one (older items)').optional(),
});

/** Every path parameter of the admin routes: how it is checked, and its description. */
const PATH_PARAMETERS = {
  organizationId: uuid.describe('The organization'),
  userId: uuid.describe('The user'),
  apiKeyId: uuid.describe('The API key'),
  templateId: uuid.describe('The email template'),
  domain: z.string().max(253).describe('The sender domain, e.g. mail.acme.com'),
  endpointId: uuid.describe('The webhook endpoint'),
  configId: uuid.describe('The auth proxy configuration'),
};
type PathParameterName = keyof typeof PATH_PARAMETERS;

/** The names of a path's parameters: `/a/{organizationId}/b/{userId}` → 'organizationId' | 'userId'. */
type PathParameters<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParameters<Rest> : never;

/** A flag of an admin command, and the part of the request its value fills. */
export interface AdminFlag {
  type: 'string' | 'integer';
  /** What the value is in usage lines: ID, N, FILE. */
  value: string;
  required?: true;
  /** May be given several times; the values are sent as an array. */
  multiple?: true;
  description: string;
  /** A path parameter, a query parameter or a field of the body (an integer flag's value is sent there as a number). */
  to: { path: PathParameterName } | { query: string } | { body: string };
  /** The value names a file, whose text is sent. */
  file?: true;
  /** Given empty, it is left out like a flag not given. */
  skipEmpty?: true;
}

/** An item of a list as the command prints it. */
export type AdminRow = Record<string, string | number | null | undefined>;

/** A column of a list: its title in the header, and its cell of each item ('-' where there is nothing). */
export interface AdminColumn {
  title: string;
  cell: (item: AdminRow) => string;
}

/**
 * What an admin command prints without --json (with it, the answer as it is): by default each field
 * of the answer on a `key: value` line; `fields`: only these; `secretFields`: fields shown this once
 * (a new private key), each followed by a line saying so; `items`: a table of that list of the
 * answer under a header of `columns` (`empty`, given the command's flags, when there are none), from
 * every page (each after the last `pagedBy` of the one before) when it is paged.
 */
export type AdminOutput =
  | {
      fields?: string[];
      secretFields?: string[];
      /** Whether the answer reports success: when it does not, the command prints it and exits 1. */
      succeeded?: (answer: Record<string, unknown>) => boolean;
    }
  | { items: string; columns: AdminColumn[]; empty: string | ((flag: (name: string) => string | undefined) => string); pagedBy?: string };

/** The signet command that calls a route; it has --json besides these flags. */
export interface AdminCommand {
  name: string;
  sub: string;
  /** One line, for the command list, docs/cli.md and the help page. */
  summary: string;
  flags: Record<string, AdminFlag>;
  output?: AdminOutput;
}

/**
 * The answer of a route that is a file rather than a JSON document: its media type and what it
 * holds. The fields of the route's `answer` then travel as headers (downloadHeader names them).
 */
export interface AdminDownload {
  mediaType: string;
  description: string;
}

/** The header a field of a download's answer travels in: `secretCheck` → `Signet-Secret-Check`. */
export function downloadHeader(field: string): string {
  return `Signet-${field.replace(/^./, (c) => c.toUpperCase()).replace(/[A-Z]/g, (c, at: number) => (at ? `-${c}` : c))}`;
}

interface AdminRouteDeclaration<
  Path extends string,
  Query extends z.ZodType,
  Body extends z.ZodType,
  Answer extends z.ZodType,
  Download extends AdminDownload | undefined = undefined,
> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** The whole path, its parameters in braces as OpenAPI writes them. */
  path: Path;
  summary: string;
  description?: string;
  query?: Query;
  body?: Body;
  /** The message of a body the schema refuses ("invalid organization"); each wrong field is named after it. */
  invalidBody?: string;
  /** A body for the OpenAPI document. */
  example?: z.input<Body>;
  answer: Answer;
  /** The answer is this file; `answer` declares the headers that come with it. */
  download?: Download;
  /** What its 404 means (every admin route may answer one: see adminStatuses). */
  notFound: string;
  cli?: AdminCommand;
}

export interface AdminRoute<
  Path extends string = string,
  Query extends z.ZodType = z.ZodType,
  Body extends z.ZodType = z.ZodType,
  Answer extends z.ZodType = z.ZodType,
  Download extends AdminDownload | undefined = AdminDownload | undefined,
> extends AdminRouteDeclaration<Path, Query, Body, Answer, Download> {
  /** Its path parameters, checked: made from the path. */
  params: z.ZodType<Record<PathParameters<Path>, string>>;
}

function adminRoute<
  Path extends string,
  Query extends z.ZodType,
  Body extends z.ZodType,
  Answer extends z.ZodType,
  Download extends AdminDownload | undefined = undefined,
>(declaration: AdminRouteDeclaration<Path, Query, Body, Answer, Download>): AdminRoute<Path, Query, Body, Answer, Download> {
  const names = [...declaration.path.matchAll(/\{(\w+)\}/g)].map(([, parameter]) => parameter as PathParameterName);
  const params = z.object(Object.fromEntries(names.map((parameter) => [parameter, PATH_PARAMETERS[parameter]])));
  return { ...declaration, params: params as unknown as z.ZodType<Record<PathParameters<Path>, string>> };
}

/** The error statuses an admin route may answer, besides those of every route. */
export function adminStatuses(route: AdminRoute): Array<'400' | '401' | '403' | '404' | '413' | '415' | '429' | '503'> {
  return ['400', '401', '403', '404', '429', '503', ...(route.body ? (['413', '415'] as const) : [])];
}

const EXAMPLE_USER = '2b6f0cc9-4a7e-4c1d-9f3e-8d5a1b2c3d4e';

const org: AdminFlag = { type: 'string', value: 'ID', required: true, description: 'the organization; `signet org list` shows them', to: { path: 'organizationId' } };

const apiKeysPage = adminPage.extend({ userId: uuid.describe("Only this user's keys").optional() });

/** Every admin route, by the name of the admin function it calls. */
export const ADMIN_ROUTES = {
  createOrganization: adminRoute({
    method: 'post',
    path: '/admin/v1/organizations',
    summary: 'Create an organization with a first user and API key',
    description: 'The private key is returned only when Signet generated the pair; pass publicKey to register a key you hold.',
    body: adminSchemas.organization,
    invalidBody: 'invalid organization',
    example: { name: 'Acme' },
    answer: createdOrganization,
    notFound: 'Not given for this route',
    cli: {
      name: 'org',
      sub: 'create',
      summary: 'create an organization with a root user and an API key; prints their ids and the key pair, and writes them to a credentials file the CLI and the examples find',
      flags: { name: { type: 'string', value: 'N', required: true, description: 'its name', to: { body: 'name' } } },
      output: { secretFields: ['apiPrivateKey'] },
    },
  }),
  listOrganizations: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations',
    summary: 'List organizations, newest first',
    description: 'Paged: before and after are organization ids.',
    query: adminPage,
    answer: z.strictObject({ organizations: z.array(listedOrganization).describe('Organizations, sub-organizations included, newest first: one page') }),
    notFound: 'A cursor (before, after) that is not an organization',
    cli: {
      name: 'org',
      sub: 'list',
      summary: 'every organization, newest first; a sub-organization names its parent',
      flags: {},
      output: {
        items: 'organizations',
        pagedBy: 'organizationId',
        columns: [
          { title: 'ORGANIZATION ID', cell: (o) => cell(o.organizationId) },
          { title: 'CREATED', cell: (o) => cell(o.createdAt) },
          { title: 'SUB-ORGANIZATION OF', cell: (o) => cell(o.parentId) },
          { title: 'DELETED', cell: (o) => cell(o.deletedAt) },
          { title: 'NAME', cell: (o) => cell(o.name) },
        ],
        empty: 'no organizations',
      },
    },
  }),
  listSubOrganizations: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations/{organizationId}/suborgs',
    summary: "List the organization's sub-organizations, newest first",
    description: 'Deleted ones included, with when they were deleted.',
    query: adminPage,
    answer: z.strictObject({ subOrganizations: z.array(subOrganization).describe('Sub-organizations, deleted ones included, newest first: one page') }),
    notFound: 'No such organization',
    cli: {
      name: 'suborg',
      sub: 'list',
      summary: "the organization's sub-organizations, newest first, deleted ones marked",
      flags: { org },
      output: {
        items: 'subOrganizations',
        pagedBy: 'organizationId',
        columns: [
          { title: 'ORGANIZATION ID', cell: (o) => cell(o.organizationId) },
          { title: 'CREATED', cell: (o) => cell(o.createdAt) },
          { title: 'DELETED', cell: (o) => cell(o.deletedAt) },
          { title: 'NAME', cell: (o) => cell(o.name) },
        ],
        empty: 'no sub-organizations',
      },
    },
  }),
  createUser: adminRoute({
    method: 'post',
    path: '/admin/v1/organizations/{organizationId}/users',
    summary: 'Create a user with an email and phone number, each unique in the organization',
    description: 'A contact another user of the organization has is a 400 naming the field.',
    body: adminSchemas.user,
    invalidBody: 'invalid user',
    example: { userName: 'Alice', email: 'alice@example.com' },
    answer: adminUser,
    notFound: 'No such organization',
    cli: {
      name: 'user',
      sub: 'create',
      summary: 'create a user; email and phone are unique in the organization',
      flags: {
        org,
        email: { type: 'string', value: 'E', description: 'its email address', to: { body: 'email' } },
        phone: { type: 'string', value: 'P', description: 'its phone number in international form (+14155550100)', to: { body: 'phoneNumber' } },
        name: { type: 'string', value: 'N', description: 'its name (default: the email, else the phone number)', to: { body: 'userName' } },
      },
    },
  }),
  listUsers: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations/{organizationId}/users',
    summary: 'List users not removed, newest first',
    query: adminPage,
    answer: z.strictObject({ users: z.array(adminUser).describe('Users not removed, newest first: one page') }),
    notFound: 'No such organization',
    cli: {
      name: 'user',
      sub: 'list',
      summary: "the organization's users not removed, newest first",
      flags: { org },
      output: {
        items: 'users',
        pagedBy: 'userId',
        columns: [
          { title: 'USER ID', cell: (u) => cell(u.userId) },
          { title: 'CREATED', cell: (u) => cell(u.createdAt) },
          { title: 'EMAIL', cell: (u) => cell(u.email) },
          { title: 'PHONE', cell: (u) => cell(u.phoneNumber) },
          { title: 'NAME', cell: (u) => cell(u.userName) },
        ],
        empty: 'no users',
      },
    },
  }),
  getUser: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations/{organizationId}/users/{userId}',
    summary: 'Show a user',
    answer: adminUser,
    notFound: 'No such user in the organization, or it was removed',
  }),
  removeUser: adminRoute({
    method: 'delete',
    path: '/admin/v1/organizations/{organizationId}/users/{userId}',
    summary: 'Remove a user and revoke all its API keys and authenticators at once',
    description: 'Takes effect at once, in every process; its email and phone number become free for another user.',
    answer: removedUser,
    notFound: 'No such user in the organization, or it was removed before',
    cli: {
      name: 'user',
      sub: 'remove',
      summary: 'remove a user and revoke all its API keys and passkeys at once',
      flags: { org, user: { type: 'string', value: 'ID', required: true, description: 'the user; `signet user list --org ID` shows them', to: { path: 'userId' } } },
    },
  }),
  createApiKey: adminRoute({
    method: 'post',
    path: '/admin/v1/organizations/{organizationId}/api-keys',
    summary: 'Create an API key',
    description: 'The private key is returned only when Signet generated the pair; pass publicKey to register a key you hold.',
    body: adminSchemas.apiKey,
    invalidBody: 'invalid API key',
    example: { userId: EXAMPLE_USER, name: 'ci', expiresInSeconds: 86400 },
    answer: createdApiKey,
    notFound: 'No such organization or user',
    cli: {
      name: 'apikey',
      sub: 'create',
      summary: 'create an API key for a user: a new key pair, or the public key you give',
      flags: {
        org,
        user: { type: 'string', value: 'ID', required: true, description: 'the user who holds it', to: { body: 'userId' } },
        name: { type: 'string', value: 'N', description: 'its name', to: { body: 'name' }, skipEmpty: true },
        'expires-in': { type: 'integer', value: 'SECONDS', description: 'it expires this many seconds from now', to: { body: 'expiresInSeconds' } },
        'public-key': { type: 'string', value: 'HEX', description: 'a P-256 public key you hold, in hex', to: { body: 'publicKey' }, skipEmpty: true },
      },
      output: { secretFields: ['apiPrivateKey'] },
    },
  }),
  listApiKeys: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations/{organizationId}/api-keys',
    summary: 'List API keys and session keys, newest first',
    description: 'Revoked and expired keys included; userId keeps one user\'s.',
    query: apiKeysPage,
    answer: z.strictObject({ apiKeys: z.array(listedApiKey).describe('API keys and session keys, newest first: one page') }),
    notFound: 'No such organization',
    cli: {
      name: 'apikey',
      sub: 'list',
      summary: "the organization's API keys, newest first, revoked and expired ones too; kind api_key, session for an OTP login's, or otp_auth for a key of otp_auth",
      flags: { org, user: { type: 'string', value: 'ID', description: "only this user's", to: { query: 'userId' } } },
      output: {
        items: 'apiKeys',
        pagedBy: 'apiKeyId',
        columns: [
          { title: 'API KEY ID', cell: (k) => cell(k.apiKeyId) },
          { title: 'CREATED', cell: (k) => cell(k.createdAt) },
          { title: 'KIND', cell: (k) => cell(k.kind) },
          { title: 'STATE', cell: keyState },
          { title: 'USER ID', cell: (k) => cell(k.userId) },
          { title: 'PUBLIC KEY', cell: (k) => cell(k.publicKey) },
          { title: 'NAME', cell: (k) => cell(k.name) },
        ],
        empty: (flag) => (flag('user') ? 'no API keys for this user' : 'no API keys'),
      },
    },
  }),
  revokeApiKey: adminRoute({
    method: 'delete',
    path: '/admin/v1/organizations/{organizationId}/api-keys/{apiKeyId}',
    summary: 'Revoke an API key',
    description: 'Takes effect at once: every later request stamped with it is a 401.',
    answer: revokedApiKey,
    notFound: 'No such API key in the organization',
    cli: {
      name: 'apikey',
      sub: 'revoke',
      summary: 'revoke an API key at once',
      flags: { org, key: { type: 'string', value: 'ID', required: true, description: 'the API key; `signet apikey list --org ID` shows them', to: { path: 'apiKeyId' } } },
    },
  }),
  getRootQuorum: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations/{organizationId}/root-quorum',
    summary: "Show the organization's root quorum",
    description: 'As get_organization_configs shows it: the threshold and the users, oldest first.',
    answer: rootQuorumSchema,
    notFound: 'No such organization',
  }),
  setRootQuorum: adminRoute({
    method: 'put',
    path: '/admin/v1/organizations/{organizationId}/root-quorum',
    summary: "Replace the organization's root quorum, without its approval",
    description:
      "The way back when the root users lost their keys (update_root_quorum needs the root quorum's own approval). The rules of update_root_quorum: " +
      '1 to 100 users of the organization, not removed, none twice, and a threshold from 1 to their number; anything else is a 400 naming the field ' +
      '(userIds[1] for a user that is not one of the organization\'s), nothing written. Takes effect at once, in every process.',
    body: adminSchemas.rootQuorum,
    invalidBody: 'invalid root quorum',
    example: { threshold: 1, userIds: [EXAMPLE_USER] },
    answer: rootQuorumSchema,
    notFound: 'No such organization',
    cli: {
      name: 'org',
      sub: 'quorum',
      summary: "replace the organization's root quorum as the operator, without its approval: the way back when its root users lost their keys",
      flags: {
        org,
        threshold: { type: 'integer', value: 'N', required: true, description: 'how many of the users must approve, 1 to their number', to: { body: 'threshold' } },
        user: {
          type: 'string',
          value: 'ID',
          required: true,
          multiple: true,
          description: 'a user of the organization; `signet user list --org ID` shows them',
          to: { body: 'userIds' },
        },
      },
    },
  }),
  addSenderDomain: adminRoute({
    method: 'post',
    path: '/admin/v1/organizations/{organizationId}/sender-domains',
    summary: 'Register a sender domain',
    description: "init_otp_auth's sendFromEmailAddress must be on a registered domain.",
    body: adminSchemas.senderDomain,
    invalidBody: 'invalid sender domain',
    example: { domain: 'mail.acme.com' },
    answer: senderDomain,
    notFound: 'No such organization',
    cli: {
      name: 'sender-domain',
      sub: 'add',
      summary: 'allow sendFromEmailAddress on domain D',
      flags: { org, domain: { type: 'string', value: 'D', required: true, description: 'the domain, e.g. mail.acme.com', to: { body: 'domain' } } },
    },
  }),
  listSenderDomains: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations/{organizationId}/sender-domains',
    summary: 'List sender domains, newest first',
    query: adminPage,
    answer: z.strictObject({ senderDomains: z.array(listedSenderDomain).describe('Sender domains, newest first: one page') }),
    notFound: 'No such organization',
    cli: {
      name: 'sender-domain',
      sub: 'list',
      summary: "the organization's sender domains, newest first",
      flags: { org },
      output: {
        items: 'senderDomains',
        pagedBy: 'senderDomainId',
        columns: [
          { title: 'SENDER DOMAIN ID', cell: (d) => cell(d.senderDomainId) },
          { title: 'CREATED', cell: (d) => cell(d.createdAt) },
          { title: 'DOMAIN', cell: (d) => cell(d.domain) },
        ],
        empty: 'no sender domains',
      },
    },
  }),
  removeSenderDomain: adminRoute({
    method: 'delete',
    path: '/admin/v1/organizations/{organizationId}/sender-domains/{domain}',
    summary: 'Remove a sender domain',
    answer: senderDomain,
    notFound: 'The domain is not registered for the organization',
    cli: {
      name: 'sender-domain',
      sub: 'remove',
      summary: 'stop allowing sendFromEmailAddress on domain D',
      flags: { org, domain: { type: 'string', value: 'D', required: true, description: 'the domain (any letter case)', to: { path: 'domain' } } },
    },
  }),
  addEmailTemplate: adminRoute({
    method: 'post',
    path: '/admin/v1/organizations/{organizationId}/email-templates',
    summary: 'Add an email template',
    description: 'Checked before it is stored: Handlebars without raw output, partials or custom helpers.',
    body: adminSchemas.emailTemplate,
    invalidBody: 'invalid email template',
    example: { name: 'default', subject: 'Your {{appName}} code', html: '<p>Your code is <b>{{otpCode}}</b></p>', text: 'Your code is {{otpCode}}' },
    answer: emailTemplate,
    notFound: 'No such organization',
    cli: {
      name: 'template',
      sub: 'add',
      summary: 'store an OTP email template (Handlebars)',
      flags: {
        org,
        subject: { type: 'string', value: 'S', required: true, description: 'the subject (a template too)', to: { body: 'subject' } },
        html: { type: 'string', value: 'FILE', required: true, description: 'the HTML part', to: { body: 'html' }, file: true },
        text: { type: 'string', value: 'FILE', required: true, description: 'the plain text part', to: { body: 'text' }, file: true },
        name: { type: 'string', value: 'N', description: 'its name', to: { body: 'name' }, skipEmpty: true },
      },
      output: { fields: ['templateId', 'name', 'createdAt'] },
    },
  }),
  listEmailTemplates: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations/{organizationId}/email-templates',
    summary: 'List email templates, newest first',
    query: adminPage,
    answer: z.strictObject({ emailTemplates: z.array(emailTemplate).describe('Templates, newest first (the first is the one used by default): one page') }),
    notFound: 'No such organization',
    cli: {
      name: 'template',
      sub: 'list',
      summary: "the organization's templates, newest (the default) first",
      flags: { org },
      output: {
        items: 'emailTemplates',
        pagedBy: 'templateId',
        columns: [
          { title: 'TEMPLATE ID', cell: (t) => cell(t.templateId) },
          { title: 'CREATED', cell: (t) => cell(t.createdAt) },
          { title: 'NAME', cell: (t) => cell(t.name) },
          { title: 'SUBJECT', cell: (t) => cell(t.subject) },
        ],
        empty: 'no email templates',
      },
    },
  }),
  removeEmailTemplate: adminRoute({
    method: 'delete',
    path: '/admin/v1/organizations/{organizationId}/email-templates/{templateId}',
    summary: 'Remove an email template',
    answer: removedEmailTemplate,
    notFound: 'No such template in the organization',
    cli: {
      name: 'template',
      sub: 'remove',
      summary: 'delete a template',
      flags: {
        org,
        id: { type: 'string', value: 'TEMPLATE', required: true, description: 'the template; `signet template list --org ID` shows them', to: { path: 'templateId' } },
      },
    },
  }),
  listDeliveries: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations/{organizationId}/deliveries',
    summary: 'Delivery state of OTP messages, newest first',
    query: adminSchemas.deliveries,
    answer: z.strictObject({ deliveries: z.array(delivery).describe('OTP messages, newest first') }),
    notFound: 'No such organization',
    cli: {
      name: 'delivery',
      sub: 'list',
      summary: 'delivery state of OTP messages, newest first',
      flags: {
        org,
        status: { type: 'string', value: 'S', description: 'only messages in this state: queued, sending, retrying, sent or failed', to: { query: 'status' } },
        otp: { type: 'string', value: 'ID', description: "only this OTP's messages", to: { query: 'otpId' } },
        limit: { type: 'integer', value: 'N', description: 'at most this many (1–500, default 50)', to: { query: 'limit' } },
      },
      output: {
        items: 'deliveries',
        columns: [
          { title: 'CREATED', cell: (d) => cell(d.createdAt) },
          { title: 'STATUS', cell: (d) => cell(d.status) },
          { title: 'CHANNEL', cell: (d) => cell(d.channel) },
          { title: 'TO', cell: (d) => cell(d.to) },
          { title: 'OTP ID', cell: (d) => cell(d.otpId) },
          { title: 'ATTEMPTS', cell: (d) => cell(d.attempts) },
          {
            title: 'DETAIL',
            cell: (d) => cell([d.providerMessageId && `id ${d.providerMessageId}`, d.lastError && `error: ${d.lastError}`, d.logoError && `logo: ${d.logoError}`].filter(Boolean).join('; ')),
          },
        ],
        empty: (flag) => `no ${flag('status') ? `${flag('status')} ` : ''}deliveries${flag('otp') ? ' of this OTP' : ''}`,
      },
    },
  }),
  listWebhookEndpoints: adminRoute({
    method: 'get',
    path: '/admin/v1/organizations/{organizationId}/webhook-endpoints',
    summary: "The organization's webhook endpoints, oldest first",
    answer: z.strictObject({ webhookEndpoints: z.array(webhookEndpointSummary).describe('Its endpoints, oldest first (at most 10)') }),
    notFound: 'No such organization',
    cli: {
      name: 'webhook',
      sub: 'list',
      summary: "the organization's webhook endpoints",
      flags: { org },
      output: {
        items: 'webhookEndpoints',
        columns: [
          { title: 'ENDPOINT ID', cell: (e) => cell(e.endpointId) },
          { title: 'CREATED', cell: (e) => cell(e.createdAt) },
          { title: 'ACTIVE', cell: (e) => cell(String(e.isActive)) },
          { title: 'URL', cell: (e) => cell(e.url) },
          { title: 'NAME', cell: (e) => cell(e.name) },
        ],
        empty: 'no webhook endpoints; create one with the create_webhook_endpoint activity',
      },
    },
  }),
  testWebhookEndpoint: adminRoute({
    method: 'post',
    path: '/admin/v1/organizations/{organizationId}/webhook-endpoints/{endpointId}/test',
    summary: 'Post a signed test event to a webhook endpoint and wait for its first attempt',
    description:
      'Queues an ACTIVITY_UPDATES event with `test: true` and a synthetic completed activity (id the nil UUID, type ACTIVITY_TYPE_WEBHOOK_TEST), delivered like any event, and answers once its first attempt is recorded (at most 15 s): sent with the receiver\'s answer, or the error. A failed attempt is retried like any event.',
    answer: webhookTest,
    notFound: 'No such organization, or no such webhook endpoint in it',
    cli: {
      name: 'webhook',
      sub: 'test',
      summary: 'post a signed test event to an endpoint and print what its receiver answered',
      flags: {
        org,
        endpoint: { type: 'string', value: 'ID', required: true, description: 'the endpoint; `signet webhook list --org ID` shows them', to: { path: 'endpointId' } },
      },
      // Not delivered (yet): exit 1, so a script sees that the receiver did not take it.
      output: { succeeded: (answer) => answer.status === 'sent' },
    },
  }),
  registerAuthenticator: adminRoute({
    method: 'post',
    path: '/admin/v1/organizations/{organizationId}/users/{userId}/authenticators',
    summary: 'Register a WebAuthn authenticator (passkey)',
    description: 'The registration response is verified (SIGNET_WEBAUTHN_RP_ID, SIGNET_WEBAUTHN_ORIGINS) before the credential is stored.',
    body: adminSchemas.authenticator,
    invalidBody: 'invalid authenticator',
    example: {
      name: 'laptop',
      challenge: 'c2lnbmV0LXJlZ2lzdHJhdGlvbi0x',
      attestation: { credentialId: '…', clientDataJson: '…', attestationObject: '…', transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL'] },
    },
    answer: registeredAuthenticator,
    notFound: 'No such organization or user',
  }),
  createAuthProxyConfig: adminRoute({
    method: 'post',
    path: '/admin/v1/organizations/{organizationId}/auth-proxy-configs',
    summary: 'Create an auth proxy configuration, with its dedicated user and API key',
    description:
      'The routes /v1/otp_init_v2, /v1/signup_v2, … act in the organization for pages of the allowed origins, as a user made for the configuration (its API key\'s private half sealed in the store, never answered), as far as the organization\'s root quorum and policies allow that user: the answer names the policy to submit for it.',
    body: adminSchemas.authProxyConfig,
    invalidBody: 'invalid auth proxy configuration',
    example: { allowedOrigins: ['https://app.example.com'], methods: 'otp,passkey', walletName: 'Default', walletAccounts: ['ADDRESS_FORMAT_ETHEREUM'] },
    answer: createdAuthProxyConfig,
    notFound: 'No such organization',
    cli: {
      name: 'authproxy',
      sub: 'create',
      summary: 'create an auth proxy configuration (sign-up and login from a page with no backend): prints its id (authProxyConfigId) and the policy that lets it act',
      flags: {
        organization: { type: 'string', value: 'ID', required: true, description: 'the organization it acts in', to: { path: 'organizationId' } },
        origin: { type: 'string', value: 'URL', required: true, multiple: true, description: 'an origin allowed to call it, e.g. https://app.example.com', to: { body: 'allowedOrigins' } },
        methods: { type: 'string', value: 'LIST', description: 'methods enabled, comma-separated: otp, email, sms, passkey, oauth (default otp,passkey)', to: { body: 'methods' }, skipEmpty: true },
        'app-name': { type: 'string', value: 'NAME', description: 'the app name of the OTP messages', to: { body: 'appName' }, skipEmpty: true },
        'otp-length': { type: 'integer', value: 'N', description: 'length of the codes, 6 to 9', to: { body: 'otpLength' } },
        'otp-alphabet': { type: 'string', value: 'A', description: 'alphanumeric or numeric codes', to: { body: 'otpAlphabet' }, skipEmpty: true },
        'otp-expiry': { type: 'integer', value: 'SECONDS', description: 'how long a code is valid, 60 to 600', to: { body: 'otpExpirationSeconds' } },
        'session-seconds': { type: 'integer', value: 'SECONDS', description: 'the session length the wallet kit is told', to: { body: 'sessionSeconds' } },
        'wallet-name': { type: 'string', value: 'NAME', description: 'the wallet a new sub-organization gets', to: { body: 'walletName' }, skipEmpty: true },
        'wallet-account': {
          type: 'string',
          value: 'FORMAT',
          multiple: true,
          description: 'an account of that wallet: ADDRESS_FORMAT_ETHEREUM or ADDRESS_FORMAT_SOLANA',
          to: { body: 'walletAccounts' },
        },
      },
    },
  }),
  listAuthProxyConfigs: adminRoute({
    method: 'get',
    path: '/admin/v1/auth-proxy-configs',
    summary: 'List auth proxy configurations, newest first',
    query: z.strictObject({ organizationId: uuid.describe("Only this organization's").optional() }),
    answer: z.strictObject({ authProxyConfigs: z.array(authProxyConfig).describe('The configurations, newest first (at most 500)') }),
    notFound: 'No such organization',
    cli: {
      name: 'authproxy',
      sub: 'list',
      summary: 'the auth proxy configurations, newest first',
      flags: { organization: { type: 'string', value: 'ID', description: "only this organization's", to: { query: 'organizationId' } } },
      output: {
        items: 'authProxyConfigs',
        columns: [
          { title: 'CONFIG ID', cell: (c) => cell(c.configId) },
          { title: 'ORGANIZATION ID', cell: (c) => cell(c.organizationId) },
          { title: 'CREATED', cell: (c) => cell(c.createdAt) },
          { title: 'METHODS', cell: (c) => cell((c.methods as unknown as string[]).join(',')) },
          { title: 'ORIGINS', cell: (c) => cell((c.allowedOrigins as unknown as string[]).join(' ')) },
        ],
        empty: 'no auth proxy configurations',
      },
    },
  }),
  deleteAuthProxyConfig: adminRoute({
    method: 'delete',
    path: '/admin/v1/auth-proxy-configs/{configId}',
    summary: 'Delete an auth proxy configuration',
    description: 'Its dedicated user is removed and its API key revoked at once: its routes refuse the id from then on.',
    answer: deletedAuthProxyConfig,
    notFound: 'No such auth proxy configuration',
    cli: {
      name: 'authproxy',
      sub: 'delete',
      summary: 'delete an auth proxy configuration; its user is removed and its API key revoked',
      flags: { id: { type: 'string', value: 'ID', required: true, description: 'the configuration; `signet authproxy list` shows them', to: { path: 'configId' } } },
    },
  }),
  backup: adminRoute({
    method: 'get',
    path: '/admin/v1/backup',
    summary: 'A consistent snapshot of the embedded store',
    description:
      'Taken between two statements of the server, so it holds every activity committed before it and none in part. ' +
      'It is as secret as the data it holds; the deployment secret is not in it (the CLI adds it from where the server reads it). ' +
      'A server on PostgreSQL answers a 400: back that store up with pg_dump. The CLI: signet backup FILE.',
    answer: z.strictObject({
      createdAt: z.string().describe('When the snapshot was taken (ISO 8601): it holds everything committed before'),
      store: z.literal('pglite').describe('The kind of store: pglite'),
      secretCheck: z.string().describe("An HMAC keyed by the server's deployment secret, to check a secret against it without sending either"),
    }),
    download: { mediaType: 'application/gzip', description: "The gzip-compressed tarball of the embedded store's PGlite data directory" },
    notFound: 'Not given for this route',
  }),
  rewrapKeys: adminRoute({
    method: 'post',
    path: '/admin/v1/keys/rewrap',
    summary: 'Re-seal wallet key material under the configured key-encryption key',
    description:
      'Every sealed value of the store not sealed under the key-encryption key the server seals with (its HSM key when SIGNET_PKCS11_* is set, else the one of the deployment secret) ' +
      'is opened with the key it names and sealed again, row by row, each write guarded by the value read so that a concurrent write is never lost; the server serves meanwhile. ' +
      'Running it again finds them current. A value no key the server reaches opens is counted as unreadable and named in the server\'s log (never shown). The CLI: signet keys rewrap.',
    answer: z.strictObject({
      kekId: z.string().describe('The key-encryption key every value readable is sealed under now'),
      rewrapped: z.number().int().describe('Values sealed again under it by this call'),
      alreadyCurrent: z.number().int().describe('Values that were sealed under it already'),
      unreadable: z.number().int().describe('Values no key-encryption key the server reaches opens, each named in its log; left as they are'),
    }),
    notFound: 'Not given for this route',
    cli: {
      name: 'keys',
      sub: 'rewrap',
      summary: 're-seal every wallet key under the configured key-encryption key (moving to an HSM, rotating), while the server serves; exits 1 when some cannot be opened',
      flags: {},
      output: { succeeded: (answer) => answer.unreadable === 0 },
    },
  }),
};

export type AdminRoutes = typeof ADMIN_ROUTES;

/** Every admin route, in the order the OpenAPI document lists them. */
export const ADMIN_ROUTE_LIST: readonly AdminRoute[] = Object.values(ADMIN_ROUTES);

/** A list's cell: the value, or '-' when there is none. */
function cell(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === '' ? '-' : String(value);
}

/** An API key's state as the list shows it: active, revoked (when) or expired (when). */
function keyState(key: AdminRow): string {
  if (key.revokedAt) return `revoked ${key.revokedAt}`;
  return key.expiresAt && key.expiresAt <= new Date().toISOString() ? `expired ${key.expiresAt}` : 'active';
}
