// All of Signet's configuration: read once from the environment, validated, with a clear error
// naming the variable for any bad value. Nothing else in the tree reads process.env.
import path from 'node:path';

export interface Config {
  /** Address the public API listens on (SIGNET_HOST). */
  host: string;
  /** Port the public API listens on (SIGNET_PORT). */
  port: number;
  /** postgres:// URL; undefined selects the embedded PGlite store (SIGNET_DATABASE_URL). */
  databaseUrl: string | undefined;
  /** Folder for the embedded store, dev credentials, admin token, dev mailbox (SIGNET_DATA_DIR). */
  dataDir: string;
  /** Bearer token of the admin API; generated into dataDir when unset (SIGNET_ADMIN_TOKEN). */
  adminToken: string | undefined;
  /** Hosts whose requests may reach /admin/v1 (SIGNET_ADMIN_HOST, comma-separated; loopback by default). */
  adminHosts: string[];
  /** Client addresses that may read /metrics (SIGNET_METRICS_HOST, comma-separated; loopback by default). */
  metricsHosts: string[];
  /** Accepted skew of timestampMs against the server clock (SIGNET_TIMESTAMP_TOLERANCE_MS). */
  timestampToleranceMs: number;
  /** Origins accepted in WebAuthn clientDataJSON (SIGNET_WEBAUTHN_ORIGINS, comma-separated). */
  webauthnOrigins: string[];
  /** Relying-party id whose SHA-256 must open authenticatorData (SIGNET_WEBAUTHN_RP_ID). */
  webauthnRpId: string;
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
  /** OTP codes allowed per window, each "COUNT/SECONDS" (SIGNET_RATE_LIMIT_*). */
  otpRateLimits: {
    /** Per organization and userIdentifier, SMS (SIGNET_RATE_LIMIT_SMS_PER_USER). */
    smsPerUser: RateLimitSetting;
    /** Per organization and phone number (SIGNET_RATE_LIMIT_SMS_PER_CONTACT). */
    smsPerContact: RateLimitSetting;
    /** Per organization and email address (SIGNET_RATE_LIMIT_EMAIL_PER_CONTACT). */
    emailPerContact: RateLimitSetting;
  };
  /** Accept http:// logo URLs besides https (SIGNET_ALLOW_HTTP_LOGOS; tests, closed networks). */
  allowHttpLogos: boolean;
  /** Fetch logos from private, loopback and link-local addresses (SIGNET_LOGO_ALLOW_PRIVATE; tests). */
  logoAllowPrivate: boolean;
  /** pino log level (SIGNET_LOG_LEVEL). */
  logLevel: string;
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

export const SMS_PROVIDERS = ['twilio'] as const;

export interface RateLimitSetting {
  count: number;
  windowSeconds: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** The client addresses of this host, the default audience of the admin API and of /metrics. */
const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function list(raw: string | undefined, fallback: string[]): string[] {
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((item) => item.trim()).filter(Boolean);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function rate(env: Env, name: string, fallback: string): RateLimitSetting {
  const raw = env[name] || fallback;
  const match = /^(\d{1,6})\/(\d{1,7})$/.exec(raw);
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
    throw new ConfigError(`${name} must be COUNT/SECONDS with both at least 1, e.g. "5/600", got "${raw}"`);
  }
  return { count: Number(match[1]), windowSeconds: Number(match[2]) };
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => p + '//').join(' or ')}`);
  }
  return raw;
}

function smsSettings(env: Env): SmsSettings {
  const provider = env.SIGNET_SMS_PROVIDER || undefined;
  if (provider === undefined) return { provider: 'development' };
  if (provider !== 'twilio') {
    throw new ConfigError(
      `SIGNET_SMS_PROVIDER must be one of ${SMS_PROVIDERS.join(', ')}, got "${provider}"; leave it unset to use the development SMS log`,
    );
  }
  const need = (name: string, pattern: RegExp, shape: string): string => {
    const raw = env[name];
    if (!raw) throw new ConfigError(`${name} is required with SIGNET_SMS_PROVIDER=twilio (${shape})`);
    if (!pattern.test(raw)) throw new ConfigError(`${name} must be ${shape}`);
    return raw;
  };
  const accountSid = need('SIGNET_TWILIO_ACCOUNT_SID', /^AC[0-9a-fA-F]{32}$/, 'AC followed by 32 hex digits');
  const authToken = need('SIGNET_TWILIO_AUTH_TOKEN', /^[\x21-\x7e]{8,256}$/, "the account's auth token, printable characters without spaces");
  const from = env.SIGNET_TWILIO_FROM || undefined;
  const messagingServiceSid = env.SIGNET_TWILIO_MESSAGING_SERVICE_SID || undefined;
  if ((from === undefined) === (messagingServiceSid === undefined)) {
    throw new ConfigError(
      'set exactly one of SIGNET_TWILIO_FROM (the sending number, e.g. +14155550100) and SIGNET_TWILIO_MESSAGING_SERVICE_SID (MG…)',
    );
  }
  if (from !== undefined && !/^(\+[1-9][0-9]{6,14}|[A-Za-z0-9 ]{1,11})$/.test(from)) {
    throw new ConfigError('SIGNET_TWILIO_FROM must be an E.164 number such as +14155550100 or an alphanumeric sender id of up to 11 characters');
  }
  if (messagingServiceSid !== undefined && !/^MG[0-9a-fA-F]{32}$/.test(messagingServiceSid)) {
    throw new ConfigError('SIGNET_TWILIO_MESSAGING_SERVICE_SID must be MG followed by 32 hex digits');
  }
  return {
    provider,
    accountSid,
    authToken,
    ...(from !== undefined ? { from } : {}),
    ...(messagingServiceSid !== undefined ? { messagingServiceSid } : {}),
    baseUrl: (url(env, 'SIGNET_TWILIO_BASE_URL', ['https:', 'http:']) ?? 'https://api.twilio.com').replace(/\/+$/, ''),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'SIGNET_PORT', 8080, 0, 65535);
  const host = env.SIGNET_HOST || '127.0.0.1';
  const rpId = env.SIGNET_WEBAUTHN_RP_ID || 'localhost';
  return {
    host,
    port,
    databaseUrl: url(env, 'SIGNET_DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: path.resolve(env.SIGNET_DATA_DIR || '.signet'),
    adminToken: env.SIGNET_ADMIN_TOKEN || undefined,
    adminHosts: list(env.SIGNET_ADMIN_HOST, LOOPBACK),
    metricsHosts: list(env.SIGNET_METRICS_HOST, LOOPBACK),
    timestampToleranceMs: integer(env, 'SIGNET_TIMESTAMP_TOLERANCE_MS', 5 * 60_000, 0, 24 * 3600_000),
    webauthnOrigins: list(env.SIGNET_WEBAUTHN_ORIGINS, [`http://localhost:${port}`]),
    webauthnRpId: rpId,
    smtpUrl: url(env, 'SIGNET_SMTP_URL', ['smtp:', 'smtps:']),
    emailFrom: env.SIGNET_EMAIL_FROM || 'notifications@signet.localhost',
    otpSecret: env.SIGNET_OTP_SECRET || undefined,
    sms: smsSettings(env),
    outboxPollMs: integer(env, 'SIGNET_OUTBOX_POLL_MS', 500, 10, 600_000),
    outboxMaxAttempts: integer(env, 'SIGNET_OUTBOX_MAX_ATTEMPTS', 8, 1, 100),
    outboxWorker: bool(env, 'SIGNET_OUTBOX_WORKER', true),
    otpRateLimits: {
      smsPerUser: rate(env, 'SIGNET_RATE_LIMIT_SMS_PER_USER', '5/600'),
      smsPerContact: rate(env, 'SIGNET_RATE_LIMIT_SMS_PER_CONTACT', '5/3600'),
      emailPerContact: rate(env, 'SIGNET_RATE_LIMIT_EMAIL_PER_CONTACT', '10/3600'),
    },
    allowHttpLogos: bool(env, 'SIGNET_ALLOW_HTTP_LOGOS', false),
    logoAllowPrivate: bool(env, 'SIGNET_LOGO_ALLOW_PRIVATE', false),
    logLevel: env.SIGNET_LOG_LEVEL || 'info',
    url: (env.SIGNET_URL || `http://127.0.0.1:${port}`).replace(/\/+$/, ''),
  };
}
