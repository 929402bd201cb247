// All of Signet's configuration, declared once: every SIGNET_* setting with its type, default,
// bounds and description. The table drives parsing (a bad value names its variable), docs/configuration.md's
// configuration table (test/readme.test.ts keeps them equal) and `signet config`, which masks the
// settings marked secret. Nothing else in the tree reads process.env.
import net from 'node:net';
import path from 'node:path';
import { emailAddressProblem } from './otp/contact.ts';

export interface RateLimitSetting {
  count: number;
  windowSeconds: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** One setting: how it is read, and what docs/configuration.md and `signet config` say about it. */
export interface Setting<T> {
  /** What kind of value, for the documentation: "whole number 0–65535", "URL", … */
  readonly type: string;
  /** The default as a reader sees it ("8080", "loopback", "unset", "generated"). */
  readonly defaultText: string;
  readonly description: string;
  /** What `signet config` never prints: the whole value, or the password (and credential parameters) of a URL. */
  readonly secret?: 'value' | 'url-password';
  /** The value, or a ConfigError's message (without the variable's name) when `raw` is bad. */
  parse(raw: string | undefined): T;
}

class Problem extends Error {}

function setting<T>(spec: Omit<Setting<T>, 'parse'>, parse: (raw: string | undefined) => T): Setting<T> {
  return { ...spec, parse };
}

/** Unset and empty both mean "use the default". */
const given = (raw: string | undefined): raw is string => raw !== undefined && raw !== '';

function integer(options: { default: number; min: number; max: number; unit?: string; description: string }): Setting<number> {
  const unit = options.unit ? ` ${options.unit}` : '';
  return setting(
    { type: `whole number ${options.min}–${options.max}${unit}`, defaultText: String(options.default), description: options.description },
    (raw) => {
      if (!given(raw)) return options.default;
      if (!/^\d{1,10}$/.test(raw) || Number(raw) < options.min || Number(raw) > options.max) {
        throw new Problem(`must be a whole number from ${options.min} to ${options.max}${unit}, got "${raw}"`);
      }
      return Number(raw);
    },
  );
}

function bool(options: { default: boolean; description: string }): Setting<boolean> {
  return setting({ type: 'true or false', defaultText: String(options.default), description: options.description }, (raw) => {
    if (!given(raw)) return options.default;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    throw new Problem(`must be true or false, got "${raw}"`);
  });
}

function oneOf<const T extends readonly string[]>(
  values: T,
  options: { default: T[number]; description: string },
): Setting<T[number]> {
  return setting({ type: values.join(' | '), defaultText: options.default, description: options.description }, (raw) => {
    if (!given(raw)) return options.default;
    if (!(values as readonly string[]).includes(raw)) throw new Problem(`must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as T[number];
  });
}

function optionalText(options: {
  type: string;
  defaultText: string;
  description: string;
  secret?: Setting<unknown>['secret'];
  problem?: (value: string) => string | undefined;
}): Setting<string | undefined> {
  const { problem, ...spec } = options;
  return setting(spec, (raw) => {
    if (!given(raw)) return undefined;
    const wrong = problem?.(raw);
    if (wrong) throw new Problem(wrong);
    return raw;
  });
}

function text(options: { default: string; type: string; description: string; problem?: (value: string) => string | undefined }): Setting<string> {
  const { problem, default: fallback, ...spec } = options;
  return setting({ ...spec, defaultText: fallback }, (raw) => {
    if (!given(raw)) return fallback;
    const wrong = problem?.(raw);
    if (wrong) throw new Problem(wrong);
    return raw;
  });
}

function url(protocols: string[], options: { defaultText?: string; description: string; withPassword?: true }): Setting<string | undefined> {
  return optionalText({
    type: `${protocols.map((p) => `${p}//`).join(' or ')} URL`,
    defaultText: options.defaultText ?? 'unset',
    description: options.description,
    ...(options.withPassword ? { secret: 'url-password' as const } : {}),
    problem: (raw) => {
      let parsed: URL;
      try {
        parsed = new URL(raw);
      } catch {
        return 'is not a valid URL';
      }
      return protocols.includes(parsed.protocol) ? undefined : `must start with ${protocols.map((p) => p + '//').join(' or ')}`;
    },
  });
}

function list(options: {
  type: string;
  defaultText: string;
  description: string;
  itemProblem: (item: string) => string | undefined;
}): Setting<string[] | undefined> {
  const { itemProblem, ...spec } = options;
  return setting(spec, (raw) => {
    if (raw === undefined || raw.trim() === '') return undefined;
    const items = raw.split(',').map((item) => item.trim()).filter(Boolean);
    for (const item of items) {
      const wrong = itemProblem(item);
      if (wrong) throw new Problem(`"${item}" ${wrong}`);
    }
    return items;
  });
}

function rate(fallback: string, description: string): Setting<RateLimitSetting> {
  return setting({ type: 'COUNT/SECONDS', defaultText: fallback, description }, (raw) => {
    const value = given(raw) ? raw : fallback;
    const match = /^(\d{1,6})\/(\d{1,7})$/.exec(value);
    if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
      throw new Problem(`must be COUNT/SECONDS with both at least 1, e.g. "5/600", got "${value}"`);
    }
    return { count: Number(match[1]), windowSeconds: Number(match[2]) };
  });
}

/**
 * The rule for secrets an operator sets (SIGNET_OTP_SECRET, SIGNET_ADMIN_TOKEN): at least 32
 * characters, with at least 10 different ones. `openssl rand -hex 32` or `-base64 32` passes;
 * "x", a word or a repeated pattern does not.
 */
export const SECRET_RULE = 'at least 32 characters with at least 10 different characters, e.g. the output of `openssl rand -hex 32`';
export const MIN_SECRET_LENGTH = 32;
const MIN_SECRET_DISTINCT = 10;

export function weakSecretProblem(value: string): string | undefined {
  if (value.length < MIN_SECRET_LENGTH || new Set(value).size < MIN_SECRET_DISTINCT) {
    return `is too weak (${value.length} characters, ${new Set(value).size} different): a secret must be ${SECRET_RULE}`;
  }
  if (/\s/.test(value)) return 'must not contain whitespace';
  return undefined;
}

function secret(description: string): Setting<string | undefined> {
  return optionalText({ type: 'secret', defaultText: 'generated', description, secret: 'value', problem: weakSecretProblem });
}

/** An address a server can listen on: an IP address or a host name. */
function listenAddressProblem(value: string): string | undefined {
  if (net.isIP(value)) return undefined;
  return /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(value)
    ? undefined
    : 'must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name';
}

/** A client address or network: an IP address, an IP/prefix (CIDR) range, or * for any. */
function clientAddressProblem(value: string): string | undefined {
  if (value === '*') return undefined;
  const [address, bits, extra] = value.split('/');
  const family = net.isIP(address ?? '');
  if (family === 0 || extra !== undefined) return 'is not an IP address or an address/prefix range such as 10.0.0.0/8';
  if (bits === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max ? undefined : `has a prefix length that is not 0–${max}`;
}

function originProblem(value: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return 'is not an origin such as https://app.example.com';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must start with https:// (or http:// for local development)';
  if (parsed.origin !== value.replace(/\/$/, '')) return `is not an origin (scheme, host and port only): did you mean ${parsed.origin}?`;
  return undefined;
}

function rpIdProblem(value: string): string | undefined {
  return /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(value)
    ? undefined
    : 'must be a domain name in lowercase, without scheme or port, e.g. example.com (or localhost)';
}

/** The client addresses of this host, the default audience of the admin API and of /metrics. */
export const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const SMS_PROVIDERS = ['twilio'] as const;

/** Every setting, in the order of docs/configuration.md's table. */
export const SETTINGS = {
  SIGNET_HOST: text({
    default: '127.0.0.1',
    type: 'address',
    description: 'Address the HTTP server listens on.',
    problem: listenAddressProblem,
  }),
  SIGNET_PORT: integer({ default: 8080, min: 0, max: 65535, description: 'Port the HTTP server listens on (0: any free port).' }),
  SIGNET_DATABASE_URL: url(['postgres:', 'postgresql:'], {
    description: '`postgres://…` selects a PostgreSQL server. Unset: embedded PGlite in `SIGNET_DATA_DIR/pglite`, held by one process only.',
    withPassword: true,
  }),
  SIGNET_DATA_DIR: text({
    default: './.signet',
    type: 'folder',
    description: 'Embedded store, dev credentials, generated admin token and OTP secret, dev mailbox and SMS log.',
  }),
  SIGNET_ADMIN_TOKEN: secret(
    'Bearer token of the admin API; ' + SECRET_RULE.replace(', e.g.', '. E.g.') + '. Unset: generated at first start into `SIGNET_DATA_DIR/admin-token` (0600).',
  ),
  SIGNET_ADMIN_HOST: list({
    type: 'addresses',
    defaultText: 'loopback',
    description: 'Comma-separated client addresses or ranges (`10.0.0.0/8`) allowed to call `/admin/v1`; `*` allows any.',
    itemProblem: clientAddressProblem,
  }),
  SIGNET_METRICS_HOST: list({
    type: 'addresses',
    defaultText: 'loopback',
    description: 'Comma-separated client addresses or ranges allowed to read `/metrics` (your Prometheus); `*` allows any. Others get 403.',
    itemProblem: clientAddressProblem,
  }),
  SIGNET_TRUSTED_PROXIES: list({
    type: 'addresses',
    defaultText: 'none',
    description:
      'Comma-separated addresses or ranges of reverse proxies whose `X-Forwarded-For` names the client. Unset: the TCP peer is the client. See [Behind a reverse proxy](operations.md#behind-a-reverse-proxy).',
    itemProblem: (item) => (item === '*' ? 'is not allowed: name the proxies you run' : clientAddressProblem(item)),
  }),
  SIGNET_TIMESTAMP_TOLERANCE_MS: integer({
    default: 300_000,
    min: 0,
    max: 24 * 3600_000,
    unit: 'ms',
    description: 'Accepted distance of `timestampMs` from the server clock (±5 minutes).',
  }),
  SIGNET_WEBAUTHN_RP_ID: text({
    default: 'localhost',
    type: 'domain',
    description: 'WebAuthn relying-party id; the SHA-256 of it must open `authenticatorData`.',
    problem: rpIdProblem,
  }),
  SIGNET_WEBAUTHN_ORIGINS: list({
    type: 'origins',
    defaultText: 'http://localhost:<port>',
    description: 'Comma-separated origins accepted in WebAuthn `clientDataJSON`.',
    itemProblem: originProblem,
  }),
  SIGNET_CORS_ORIGINS: list({
    type: 'origins',
    defaultText: 'none',
    description:
      'Comma-separated origins (`https://app.example.com`) of browser apps that may call the public API and `/.well-known/` across origins; `*` allows any (no cookies are involved, so it exposes nothing a non-browser client could not read). Unset: no CORS headers. See [Browser apps](api.md#browser-apps).',
    itemProblem: (item) => (item === '*' ? undefined : originProblem(item)),
  }),
  SIGNET_SMTP_URL: url(['smtp:', 'smtps:'], {
    description: '`smtp://user:pass@host:587` (or `smtps://…:465`) to send email. Unset: development mailbox.',
    withPassword: true,
  }),
  SIGNET_EMAIL_FROM: text({
    default: 'notifications@signet.localhost',
    type: 'email address',
    description: 'From address when `sendFromEmailAddress` is not given.',
    problem: (value) => {
      const problem = emailAddressProblem(value);
      return problem && `must be an email address: it ${problem}`;
    },
  }),
  SIGNET_OTP_SECRET: secret(
    'Key of the OTP hashes, the outbox encryption and the sealed signing keys; ' +
      SECRET_RULE.replace(', e.g.', '. E.g.') +
      '. Unset: generated into `SIGNET_DATA_DIR/otp-secret`. **Set it when several processes share one PostgreSQL.**',
  ),
  SIGNET_ALLOW_HTTP_LOGOS: bool({
    default: false,
    description: 'Accept `http://` logo URLs (`emailCustomization.logoUrl`) besides `https://`. For tests and closed networks.',
  }),
  SIGNET_LOGO_ALLOW_PRIVATE: bool({
    default: false,
    description: 'Fetch logos from any address, not only public unicast ones (private, loopback, link-local, reserved). For tests only: it opens server-side request forgery.',
  }),
  SIGNET_SMS_PROVIDER: optionalText({
    type: SMS_PROVIDERS.join(' | '),
    defaultText: 'unset',
    description: 'SMS provider: `twilio`. Unset: development SMS log (`SIGNET_DATA_DIR/sms.log`).',
    problem: (value) =>
      (SMS_PROVIDERS as readonly string[]).includes(value)
        ? undefined
        : `must be one of ${SMS_PROVIDERS.join(', ')}, got "${value}"; leave it unset to use the development SMS log`,
  }),
  SIGNET_TWILIO_ACCOUNT_SID: optionalText({
    type: 'AC + 32 hex',
    defaultText: '–',
    description: 'With `twilio`: the account SID (`AC` + 32 hex digits).',
    problem: (value) => (/^AC[0-9a-fA-F]{32}$/.test(value) ? undefined : 'must be AC followed by 32 hex digits'),
  }),
  SIGNET_TWILIO_AUTH_TOKEN: optionalText({
    type: 'secret',
    defaultText: '–',
    description: "With `twilio`: the account's auth token.",
    secret: 'value',
    problem: (value) =>
      /^[\x21-\x7e]{8,256}$/.test(value) ? undefined : "must be the account's auth token, printable characters without spaces",
  }),
  SIGNET_TWILIO_FROM: optionalText({
    type: 'E.164 or sender id',
    defaultText: '–',
    description: 'With `twilio`: the sending number in E.164 (`+14155550100`) or an alphanumeric sender id. Set this or the next one.',
    problem: (value) =>
      /^(\+[1-9][0-9]{6,14}|[A-Za-z0-9 ]{1,11})$/.test(value)
        ? undefined
        : 'must be an E.164 number such as +14155550100 or an alphanumeric sender id of up to 11 characters',
  }),
  SIGNET_TWILIO_MESSAGING_SERVICE_SID: optionalText({
    type: 'MG + 32 hex',
    defaultText: '–',
    description: 'With `twilio`: a Messaging Service (`MG…`) that picks the sender, instead of `SIGNET_TWILIO_FROM`.',
    problem: (value) => (/^MG[0-9a-fA-F]{32}$/.test(value) ? undefined : 'must be MG followed by 32 hex digits'),
  }),
  SIGNET_TWILIO_BASE_URL: url(['https:', 'http:'], {
    defaultText: 'https://api.twilio.com',
    description: "Where Twilio's REST API is reached (a proxy, or a loopback server in tests).",
  }),
  SIGNET_RATE_LIMIT_SMS_PER_USER: rate(
    '5/600',
    'SMS codes one `userIdentifier` of an organization may request per window, as `COUNT/SECONDS`; more is a 429 with `Retry-After`.',
  ),
  SIGNET_RATE_LIMIT_SMS_PER_CONTACT: rate('5/3600', 'SMS codes one phone number may receive per organization and window (stops SMS pumping).'),
  SIGNET_RATE_LIMIT_EMAIL_PER_CONTACT: rate('10/3600', 'Email codes one address may receive per organization and window, all its spellings together (`Victim@example.com` is `victim@example.com`).'),
  SIGNET_AUTH_FAILURE_LIMIT: rate(
    '30/60',
    'Failed authentications (bad or unknown stamps) one client address may cause per window; more is a 429 with `Retry-After` until the window passes. Requests stamped with a credential that has authenticated before are never held back.',
  ),
  SIGNET_REQUEST_TIMEOUT_MS: integer({
    default: 30_000,
    min: 1000,
    max: 600_000,
    unit: 'ms',
    description: 'Time a client has to send a whole request, headers and body; a slower one gets 408 and is disconnected.',
  }),
  SIGNET_KEEP_ALIVE_TIMEOUT_MS: integer({
    default: 5000,
    min: 100,
    max: 600_000,
    unit: 'ms',
    description: 'How long an idle kept-alive connection stays open. Behind a load balancer that reuses connections, set it above the balancer\'s idle timeout (e.g. 65000 for 60 s).',
  }),
  SIGNET_MAX_CONNECTIONS_PER_ADDRESS: integer({
    default: 64,
    min: 0,
    max: 100_000,
    description:
      'Open connections one client address (an IPv6 /64) may hold; more are closed at once. Connections from `SIGNET_TRUSTED_PROXIES` are not capped. 0: no cap. Behind a proxy not named there, every client shares its address: raise it or set 0. See [Limits on clients](api.md#limits-on-clients).',
  }),
  SIGNET_SHUTDOWN_TIMEOUT_MS: integer({
    default: 10_000,
    min: 100,
    max: 600_000,
    unit: 'ms',
    description: 'On SIGTERM/SIGINT, how long requests in flight and the email or SMS sends under way may take before the process exits anyway (exit code 1).',
  }),
  SIGNET_DATABASE_POOL_SIZE: integer({ default: 10, min: 1, max: 1000, description: 'PostgreSQL connections per process.' }),
  SIGNET_DATABASE_TIMEOUT_MS: integer({
    default: 5000,
    min: 100,
    max: 600_000,
    unit: 'ms',
    description:
      'Bound of every database wait: connecting, waiting for a pooled connection, and each statement. Past it the request gets 503 and the connection is discarded.',
  }),
  SIGNET_OUTBOX_POLL_MS: integer({
    default: 500,
    min: 10,
    max: 600_000,
    unit: 'ms',
    description: 'How often the delivery worker looks for due messages (it is also woken when an activity queues one).',
  }),
  SIGNET_OUTBOX_MAX_ATTEMPTS: integer({
    default: 8,
    min: 1,
    max: 100,
    description: 'Delivery attempts (exponential backoff) before a message is marked failed.',
  }),
  SIGNET_OUTBOX_WORKER: bool({ default: true, description: 'Run the delivery worker in this process.' }),
  SIGNET_OUTBOX_RETENTION_DAYS: integer({
    default: 7,
    min: 1,
    max: 3650,
    unit: 'days',
    description:
      'How long finished OTP messages (sent, failed) stay listed in the delivery state before the worker deletes them (their code is erased at once anyway).',
  }),
  SIGNET_LOG_LEVEL: oneOf(LOG_LEVELS, { default: 'info', description: 'Log level.' }),
  SIGNET_URL: url(['http:', 'https:'], {
    defaultText: 'http://127.0.0.1:<port>',
    description: "Where the CLI's admin commands reach the running server.",
  }),
} satisfies Record<string, Setting<unknown>>;

export type SettingName = keyof typeof SETTINGS;
type Values = { [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['parse']> };

export interface Config {
  /** Address the public API listens on (SIGNET_HOST). */
  host: string;
  /** Port the public API listens on (SIGNET_PORT). */
  port: number;
  /** postgres:// URL; undefined selects the embedded PGlite store (SIGNET_DATABASE_URL). */
  databaseUrl: string | undefined;
  /** PostgreSQL pool and the bound of every database wait (SIGNET_DATABASE_*). */
  database: { poolSize: number; timeoutMs: number };
  /** Folder for the embedded store, dev credentials, admin token, dev mailbox (SIGNET_DATA_DIR). */
  dataDir: string;
  /** Bearer token of the admin API; generated into dataDir when unset (SIGNET_ADMIN_TOKEN). */
  adminToken: string | undefined;
  /** Client addresses or ranges whose requests may reach /admin/v1 (SIGNET_ADMIN_HOST; loopback by default). */
  adminHosts: string[];
  /** Client addresses or ranges that may read /metrics (SIGNET_METRICS_HOST; loopback by default). */
  metricsHosts: string[];
  /** Reverse proxies whose X-Forwarded-For is believed (SIGNET_TRUSTED_PROXIES; none by default). */
  trustedProxies: string[];
  /** Accepted skew of timestampMs against the server clock (SIGNET_TIMESTAMP_TOLERANCE_MS). */
  timestampToleranceMs: number;
  /** Origins accepted in WebAuthn clientDataJSON (SIGNET_WEBAUTHN_ORIGINS, comma-separated). */
  webauthnOrigins: string[];
  /** Relying-party id whose SHA-256 must open authenticatorData (SIGNET_WEBAUTHN_RP_ID). */
  webauthnRpId: string;
  /** Origins whose browser apps may call /public/v1 and /.well-known across origins; ['*'] for any, [] for none (SIGNET_CORS_ORIGINS). */
  corsOrigins: string[];
  /** smtp(s)://user:pass@host:port; unset writes .eml files to dataDir/mail (SIGNET_SMTP_URL). */
  smtpUrl: string | undefined;
  /** Default From address of OTP email (SIGNET_EMAIL_FROM). */
  emailFrom: string;
  /** Key for the OTP hash and outbox encryption; generated into dataDir when unset (SIGNET_OTP_SECRET). */
  otpSecret: string | undefined;
  /** Where OTP SMS go: a provider, or the development SMS log when SIGNET_SMS_PROVIDER is unset. */
  sms: SmsSettings;
  /** How often the outbox worker looks for due messages, ms (SIGNET_OUTBOX_POLL_MS). */
  outboxPollMs: number;
  /** Attempts before an outbox message is marked failed (SIGNET_OUTBOX_MAX_ATTEMPTS). */
  outboxMaxAttempts: number;
  /** Run the outbox worker in this process (SIGNET_OUTBOX_WORKER, default true). */
  outboxWorker: boolean;
  /** Days finished outbox messages are kept (SIGNET_OUTBOX_RETENTION_DAYS). */
  outboxRetentionDays: number;
  /** OTP codes allowed per window, each "COUNT/SECONDS" (SIGNET_RATE_LIMIT_*). */
  otpRateLimits: {
    /** Per organization and userIdentifier, SMS (SIGNET_RATE_LIMIT_SMS_PER_USER). */
    smsPerUser: RateLimitSetting;
    /** Per organization and phone number (SIGNET_RATE_LIMIT_SMS_PER_CONTACT). */
    smsPerContact: RateLimitSetting;
    /** Per organization and email address (SIGNET_RATE_LIMIT_EMAIL_PER_CONTACT). */
    emailPerContact: RateLimitSetting;
  };
  /** Failed authentications allowed per client address and window (SIGNET_AUTH_FAILURE_LIMIT). */
  authFailureLimit: RateLimitSetting;
  /** Time to receive a whole request (SIGNET_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** Idle time of a kept-alive connection (SIGNET_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /** Open connections per client address, 0 for no cap (SIGNET_MAX_CONNECTIONS_PER_ADDRESS). */
  maxConnectionsPerAddress: number;
  /** Bound of a graceful shutdown (SIGNET_SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  /** Accept http:// logo URLs besides https (SIGNET_ALLOW_HTTP_LOGOS; tests, closed networks). */
  allowHttpLogos: boolean;
  /** Fetch logos from any address, not only public unicast ones (SIGNET_LOGO_ALLOW_PRIVATE; tests). */
  logoAllowPrivate: boolean;
  /** pino log level (SIGNET_LOG_LEVEL). */
  logLevel: (typeof LOG_LEVELS)[number];
  /** Base URL the CLI uses to reach a running server's admin API (SIGNET_URL). */
  url: string;
}

/** SIGNET_SMS_PROVIDER and the settings of the provider it names. */
export type SmsSettings =
  | { provider: 'development' }
  | {
      provider: 'twilio';
      /** SIGNET_TWILIO_ACCOUNT_SID, AC followed by 32 hex digits. */
      accountSid: string;
      /** SIGNET_TWILIO_AUTH_TOKEN. */
      authToken: string;
      /** Exactly one of a sender (SIGNET_TWILIO_FROM: E.164 number or alphanumeric sender id) ... */
      from?: string;
      /** ... or a Messaging Service (SIGNET_TWILIO_MESSAGING_SERVICE_SID, MG followed by 32 hex digits). */
      messagingServiceSid?: string;
      /** SIGNET_TWILIO_BASE_URL, https://api.twilio.com unless pointed elsewhere (tests, a proxy). */
      baseUrl: string;
    };

/** Every setting's value; all bad variables are named in one ConfigError. */
function readSettings(env: Env): Values {
  const values: Partial<Record<SettingName, unknown>> = {};
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(SETTINGS) as Array<[SettingName, Setting<unknown>]>) {
    try {
      values[name] = spec.parse(env[name]);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      problems.push(`${name} ${error.message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  return values as Values;
}

function smsSettings(values: Values): SmsSettings {
  const provider = values.SIGNET_SMS_PROVIDER;
  if (provider === undefined) return { provider: 'development' };
  const need = (name: 'SIGNET_TWILIO_ACCOUNT_SID' | 'SIGNET_TWILIO_AUTH_TOKEN', shape: string): string => {
    const value = values[name];
    if (value === undefined) throw new ConfigError(`${name} is required with SIGNET_SMS_PROVIDER=twilio (${shape})`);
    return value;
  };
  const accountSid = need('SIGNET_TWILIO_ACCOUNT_SID', 'AC followed by 32 hex digits');
  const authToken = need('SIGNET_TWILIO_AUTH_TOKEN', "the account's auth token");
  const from = values.SIGNET_TWILIO_FROM;
  const messagingServiceSid = values.SIGNET_TWILIO_MESSAGING_SERVICE_SID;
  if ((from === undefined) === (messagingServiceSid === undefined)) {
    throw new ConfigError(
      'set exactly one of SIGNET_TWILIO_FROM (the sending number, e.g. +14155550100) and SIGNET_TWILIO_MESSAGING_SERVICE_SID (MG…)',
    );
  }
  return {
    provider: 'twilio',
    accountSid,
    authToken,
    ...(from !== undefined ? { from } : {}),
    ...(messagingServiceSid !== undefined ? { messagingServiceSid } : {}),
    baseUrl: (values.SIGNET_TWILIO_BASE_URL ?? 'https://api.twilio.com').replace(/\/+$/, ''),
  };
}

function corsOrigins(origins: string[] | undefined): string[] {
  if (origins === undefined) return [];
  if (origins.includes('*') && origins.length > 1) {
    throw new ConfigError('SIGNET_CORS_ORIGINS is either `*` (any origin) or a list of origins, not both');
  }
  return origins.map((origin) => origin.replace(/\/$/, ''));
}

export function loadConfig(env: Env = process.env): Config {
  const v = readSettings(env);
  const port = v.SIGNET_PORT;
  return {
    host: v.SIGNET_HOST,
    port,
    databaseUrl: v.SIGNET_DATABASE_URL,
    database: { poolSize: v.SIGNET_DATABASE_POOL_SIZE, timeoutMs: v.SIGNET_DATABASE_TIMEOUT_MS },
    dataDir: path.resolve(v.SIGNET_DATA_DIR),
    adminToken: v.SIGNET_ADMIN_TOKEN,
    adminHosts: v.SIGNET_ADMIN_HOST ?? LOOPBACK,
    metricsHosts: v.SIGNET_METRICS_HOST ?? LOOPBACK,
    trustedProxies: v.SIGNET_TRUSTED_PROXIES ?? [],
    timestampToleranceMs: v.SIGNET_TIMESTAMP_TOLERANCE_MS,
    webauthnOrigins: (v.SIGNET_WEBAUTHN_ORIGINS ?? [`http://localhost:${port}`]).map((origin) => origin.replace(/\/$/, '')),
    webauthnRpId: v.SIGNET_WEBAUTHN_RP_ID,
    corsOrigins: corsOrigins(v.SIGNET_CORS_ORIGINS),
    smtpUrl: v.SIGNET_SMTP_URL,
    emailFrom: v.SIGNET_EMAIL_FROM,
    otpSecret: v.SIGNET_OTP_SECRET,
    sms: smsSettings(v),
    outboxPollMs: v.SIGNET_OUTBOX_POLL_MS,
    outboxMaxAttempts: v.SIGNET_OUTBOX_MAX_ATTEMPTS,
    outboxWorker: v.SIGNET_OUTBOX_WORKER,
    outboxRetentionDays: v.SIGNET_OUTBOX_RETENTION_DAYS,
    otpRateLimits: {
      smsPerUser: v.SIGNET_RATE_LIMIT_SMS_PER_USER,
      smsPerContact: v.SIGNET_RATE_LIMIT_SMS_PER_CONTACT,
      emailPerContact: v.SIGNET_RATE_LIMIT_EMAIL_PER_CONTACT,
    },
    authFailureLimit: v.SIGNET_AUTH_FAILURE_LIMIT,
    requestTimeoutMs: v.SIGNET_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: v.SIGNET_KEEP_ALIVE_TIMEOUT_MS,
    maxConnectionsPerAddress: v.SIGNET_MAX_CONNECTIONS_PER_ADDRESS,
    shutdownTimeoutMs: v.SIGNET_SHUTDOWN_TIMEOUT_MS,
    allowHttpLogos: v.SIGNET_ALLOW_HTTP_LOGOS,
    logoAllowPrivate: v.SIGNET_LOGO_ALLOW_PRIVATE,
    logLevel: v.SIGNET_LOG_LEVEL,
    url: (v.SIGNET_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, ''),
  };
}

/** Where a setting's value came from. */
export type SettingSource = 'environment' | 'default';

export interface ReportedSetting {
  name: SettingName;
  /** As given (secrets masked), or the default as docs/configuration.md states it. */
  value: string;
  source: SettingSource;
}

const MASK = '********';

/** A URL with its password, and the values of query parameters that carry credentials, masked. */
function withoutPassword(value: string): string {
  const parsed = new URL(value);
  if (parsed.password) parsed.password = MASK;
  for (const key of [...parsed.searchParams.keys()]) {
    if (/pass|secret|token/i.test(key)) parsed.searchParams.set(key, MASK);
  }
  return parsed.href;
}

/** What `signet config` shows of a value: a secret never, a URL without its password. */
export function displayedValue(name: SettingName, raw: string): string {
  const secret = (SETTINGS[name] as Setting<unknown>).secret;
  if (secret === 'value') return MASK;
  return secret === 'url-password' ? withoutPassword(raw) : raw;
}

/** Whether the environment gives the setting (unset, empty or blank means its default). */
export function settingSource(name: SettingName, env: Env = process.env): SettingSource {
  const raw = env[name];
  return raw !== undefined && raw.trim() !== '' ? 'environment' : 'default';
}

/**
 * Every setting with its effective value and where it came from, for `signet config`: a ConfigError
 * first when the environment holds a bad value (as `signet serve` would stop on).
 */
export function configurationReport(env: Env = process.env): ReportedSetting[] {
  const config = loadConfig(env);
  return (Object.entries(SETTINGS) as Array<[SettingName, Setting<unknown>]>).map(([name, spec]) =>
    settingSource(name, env) === 'environment'
      ? { name, value: displayedValue(name, env[name]!), source: 'environment' }
      : { name, value: spec.defaultText.replace('<port>', String(config.port)), source: 'default' },
  );
}

/** docs/configuration.md's configuration table, rendered from SETTINGS (test/readme.test.ts keeps them equal). */
export function configurationTable(): string {
  const cell = (value: string) => value.replace(/\|/g, '\\|');
  // Words describe a default; values are shown as code.
  const shown = (value: string) => (/^(unset|none|generated|loopback|–)$/.test(value) ? value : `\`${cell(value)}\``);
  const rows = (Object.entries(SETTINGS) as Array<[SettingName, Setting<unknown>]>).map(
    ([name, spec]) => `| \`${name}\` | ${cell(spec.type)} | ${shown(spec.defaultText)} | ${cell(spec.description)} |`,
  );
  return ['| Variable | Type | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
