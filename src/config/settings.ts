// Every SIGNET_* setting, each declared once: its variable, the kind of value (a zod schema from
// values.ts), its default, its meaning, whether it is secret and where docs/configuration.md lists
// it. The key path of a setting here is its place in Config (src/config.ts), whose type is inferred
// from these declarations; parsing, `signet config` and the docs' table all read them.
import { z } from 'zod';
import {
  baseUrl,
  clientAddressProblem,
  domainName,
  emailAddress,
  folder,
  issuerUrls,
  linkBase,
  list,
  listenAddress,
  matching,
  oneOf,
  origins,
  rateLimit,
  secret,
  SECRET_RULE,
  trueOrFalse,
  url,
  wholeNumber,
  type ValueSchema,
} from './values.ts';

/** The sections of docs/configuration.md's settings, in their order there. */
export const GROUPS = {
  server: 'Server',
  clients: 'Clients and their limits',
  access: 'Admin API and metrics',
  storage: 'Storage',
  stamps: 'Stamps and passkeys',
  otp: 'One-time codes',
  email: 'Email',
  sms: 'SMS',
  delivery: 'Delivery worker',
  hsm: 'Key custody in an HSM (PKCS#11)',
} as const;

interface Declaration<S extends ValueSchema, E extends string> {
  /** The environment variable. */
  env: E;
  /** The value, read from the variable's text. */
  schema: S;
  /** The text used when the variable is unset, empty or blank; `<port>` stands for the effective port. Without one, the value is undefined. */
  default?: string;
  /** How the docs and `signet config` state the default when it is not a value to show ("generated"). */
  defaultText?: string;
  description: string;
  /** What `signet config` never prints: the whole value, or the password (and credential parameters) of a URL. */
  secret?: 'value' | 'url-password';
  group: keyof typeof GROUPS;
}

/** A declared setting whose value has type `T`. */
export interface Setting<T = unknown, E extends string = string> extends Declaration<ValueSchema, E> {
  /** Only for the type of the value: a setting without a default may be undefined. */
  readonly valueType?: T;
}

export function setting<S extends ValueSchema, const E extends `SIGNET_${string}`>(
  declaration: Declaration<S, E> & { default: string },
): Setting<z.output<S>, E>;
export function setting<S extends ValueSchema, const E extends `SIGNET_${string}`>(
  declaration: Declaration<S, E>,
): Setting<z.output<S> | undefined, E>;
export function setting(declaration: Declaration<ValueSchema, string>): Setting {
  return declaration;
}

const SECRET_ADVICE = SECRET_RULE.replace(', e.g.', '. E.g.');

/** Every setting, in Config's shape; docs/configuration.md lists them by group, in this order. */
export const SETTINGS = {
  host: setting({
    env: 'SIGNET_HOST',
    schema: listenAddress(),
    default: '127.0.0.1',
    description: 'Address the HTTP server listens on.',
    group: 'server',
  }),
  port: setting({
    env: 'SIGNET_PORT',
    schema: wholeNumber(0, 65535),
    default: '8080',
    description: 'Port the HTTP server listens on (0: any free port).',
    group: 'server',
  }),
  url: setting({
    env: 'SIGNET_URL',
    schema: baseUrl('http:', 'https:'),
    default: 'http://127.0.0.1:<port>',
    description: "Where the CLI and the examples reach the running server; unset, they take the server running from SIGNET_DATA_DIR (its server.json), else the baseUrl of the credentials file in use, else this default.",
    group: 'server',
  }),
  publicUrl: setting({
    env: 'SIGNET_PUBLIC_URL',
    schema: linkBase(),
    default: 'http://localhost:<port>',
    description:
      'Where people reach this server in a browser: the base of the links Signet sends, such as an approval email\'s `…/console/activities/<id>`. No query or fragment.',
    group: 'server',
  }),
  logLevel: setting({
    env: 'SIGNET_LOG_LEVEL',
    schema: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    description: 'Log level.',
    group: 'server',
  }),
  shutdownTimeoutMs: setting({
    env: 'SIGNET_SHUTDOWN_TIMEOUT_MS',
    schema: wholeNumber(100, 600_000, 'ms'),
    default: '10000',
    description:
      'On SIGTERM/SIGINT, how long requests in flight and the email or SMS sends under way may take before the process exits anyway (exit code 1).',
    group: 'server',
  }),
  trustedProxies: setting({
    env: 'SIGNET_TRUSTED_PROXIES',
    schema: list('addresses', (item) => (item === '*' ? 'is not allowed: name the proxies you run' : clientAddressProblem(item))),
    default: '',
    defaultText: 'none',
    description:
      'Comma-separated addresses or ranges of reverse proxies whose `X-Forwarded-For` names the client. Unset: the TCP peer is the client. See [Behind a reverse proxy](operations.md#behind-a-reverse-proxy).',
    group: 'clients',
  }),
  corsOrigins: setting({
    env: 'SIGNET_CORS_ORIGINS',
    schema: origins({ anyAllowed: true }),
    default: '',
    defaultText: 'none',
    description:
      'Comma-separated origins (`https://app.example.com`) of browser apps that may call the public API and `/.well-known/` across origins; `*` allows any (no cookies are involved, so it exposes nothing a non-browser client could not read). Unset: no CORS headers. See [Browser apps](api.md#browser-apps).',
    group: 'clients',
  }),
  authFailureLimit: setting({
    env: 'SIGNET_AUTH_FAILURE_LIMIT',
    schema: rateLimit(),
    default: '30/60',
    description:
      'Failed authentications (bad or unknown stamps; wrong admin tokens, counted apart) one client address may cause per window; more is a 429 with `Retry-After` until the window passes. Requests stamped with a credential that has authenticated before are never held back; see [The admin API](admin-api.md#admin-api) for the admin token.',
    group: 'clients',
  }),
  requestTimeoutMs: setting({
    env: 'SIGNET_REQUEST_TIMEOUT_MS',
    schema: wholeNumber(1000, 600_000, 'ms'),
    default: '30000',
    description: 'Time a client has to send a whole request, headers and body; a slower one gets 408 and is disconnected.',
    group: 'clients',
  }),
  keepAliveTimeoutMs: setting({
    env: 'SIGNET_KEEP_ALIVE_TIMEOUT_MS',
    schema: wholeNumber(100, 600_000, 'ms'),
    default: '5000',
    description:
      "How long an idle kept-alive connection stays open. Behind a load balancer that reuses connections, set it above the balancer's idle timeout (e.g. 65000 for 60 s).",
    group: 'clients',
  }),
  maxConnectionsPerAddress: setting({
    env: 'SIGNET_MAX_CONNECTIONS_PER_ADDRESS',
    schema: wholeNumber(0, 100_000),
    default: '64',
    description:
      'Open connections one client address (an IPv6 /64) may hold; more are closed at once. Connections from `SIGNET_TRUSTED_PROXIES` are not capped. 0: no cap. Behind a proxy not named there, every client shares its address: raise it or set 0. See [Limits on clients](api.md#limits-on-clients).',
    group: 'clients',
  }),
  adminToken: setting({
    env: 'SIGNET_ADMIN_TOKEN',
    schema: secret(),
    defaultText: 'generated',
    description: `Bearer token of the admin API; ${SECRET_ADVICE}. Unset: generated at first start into \`SIGNET_DATA_DIR/admin-token\` (0600).`,
    secret: 'value',
    group: 'access',
  }),
  adminHosts: setting({
    env: 'SIGNET_ADMIN_HOST',
    schema: list('addresses', clientAddressProblem),
    default: '127.0.0.1, ::1, ::ffff:127.0.0.1',
    defaultText: 'loopback',
    description: 'Comma-separated client addresses or ranges (`10.0.0.0/8`) allowed to call `/admin/v1`; `*` allows any.',
    group: 'access',
  }),
  metricsHosts: setting({
    env: 'SIGNET_METRICS_HOST',
    schema: list('addresses', clientAddressProblem),
    default: '127.0.0.1, ::1, ::ffff:127.0.0.1',
    defaultText: 'loopback',
    description: 'Comma-separated client addresses or ranges allowed to read `/metrics` (your Prometheus); `*` allows any. Others get 403.',
    group: 'access',
  }),
  databaseUrl: setting({
    env: 'SIGNET_DATABASE_URL',
    schema: url('postgres:', 'postgresql:'),
    description: '`postgres://…` selects a PostgreSQL server. Unset: embedded PGlite in `SIGNET_DATA_DIR/pglite`, held by one process only.',
    secret: 'url-password',
    group: 'storage',
  }),
  dataDir: setting({
    env: 'SIGNET_DATA_DIR',
    schema: folder(),
    default: './.signet',
    description: 'Embedded store, dev credentials, generated admin token and OTP secret, dev mailbox and SMS log.',
    group: 'storage',
  }),
  database: {
    poolSize: setting({
      env: 'SIGNET_DATABASE_POOL_SIZE',
      schema: wholeNumber(1, 1000),
      default: '10',
      description: 'PostgreSQL connections per process.',
      group: 'storage',
    }),
    timeoutMs: setting({
      env: 'SIGNET_DATABASE_TIMEOUT_MS',
      schema: wholeNumber(100, 600_000, 'ms'),
      default: '5000',
      description:
        'Bound of every database wait: connecting, waiting for a pooled connection, and each statement. Past it the request gets 503 and the connection is discarded.',
      group: 'storage',
    }),
  },
  timestampToleranceMs: setting({
    env: 'SIGNET_TIMESTAMP_TOLERANCE_MS',
    schema: wholeNumber(0, 24 * 3600_000, 'ms'),
    default: '300000',
    description: 'Accepted distance of `timestampMs` from the server clock (±5 minutes).',
    group: 'stamps',
  }),
  webauthnRpId: setting({
    env: 'SIGNET_WEBAUTHN_RP_ID',
    schema: domainName(),
    default: 'localhost',
    description: 'WebAuthn relying-party id; the SHA-256 of it must open `authenticatorData`.',
    group: 'stamps',
  }),
  webauthnOrigins: setting({
    env: 'SIGNET_WEBAUTHN_ORIGINS',
    schema: origins({ anyAllowed: false }),
    default: 'http://localhost:<port>',
    description: 'Comma-separated origins accepted in WebAuthn `clientDataJSON`.',
    group: 'stamps',
  }),
  oidcIssuers: setting({
    env: 'SIGNET_OIDC_ISSUERS',
    schema: issuerUrls(),
    default: '',
    defaultText: 'none',
    description:
      "Comma-separated OpenID Connect issuers (`https://accounts.google.com`) whose id tokens Signet accepts, each written exactly as its tokens' `iss`; the only ones whose keys it fetches. See [OpenID Connect issuers](#openid-connect-issuers).",
    group: 'stamps',
  }),
  otpSecret: setting({
    env: 'SIGNET_OTP_SECRET',
    schema: secret(),
    defaultText: 'generated',
    description: `Key of the OTP hashes, the outbox encryption and the sealed signing keys; ${SECRET_ADVICE}. Unset: generated into \`SIGNET_DATA_DIR/otp-secret\`. **Set it when several processes share one PostgreSQL.**`,
    secret: 'value',
    group: 'otp',
  }),
  otpRateLimits: {
    smsPerUser: setting({
      env: 'SIGNET_RATE_LIMIT_SMS_PER_USER',
      schema: rateLimit(),
      default: '5/600',
      description:
        'SMS codes one `userIdentifier` of an organization may request per window, as `COUNT/SECONDS`; more is a 429 with `Retry-After`.',
      group: 'otp',
    }),
    smsPerContact: setting({
      env: 'SIGNET_RATE_LIMIT_SMS_PER_CONTACT',
      schema: rateLimit(),
      default: '5/3600',
      description: 'SMS codes one phone number may receive per organization and window (stops SMS pumping).',
      group: 'otp',
    }),
    emailPerContact: setting({
      env: 'SIGNET_RATE_LIMIT_EMAIL_PER_CONTACT',
      schema: rateLimit(),
      default: '10/3600',
      description:
        'Email codes one address may receive per organization and window, all its spellings together (`Victim@example.com` is `victim@example.com`).',
      group: 'otp',
    }),
  },
  smtpUrl: setting({
    env: 'SIGNET_SMTP_URL',
    schema: url('smtp:', 'smtps:'),
    description: '`smtp://user:pass@host:587` (or `smtps://…:465`) to send email. Unset: development mailbox.',
    secret: 'url-password',
    group: 'email',
  }),
  emailFrom: setting({
    env: 'SIGNET_EMAIL_FROM',
    schema: emailAddress(),
    default: 'notifications@signet.localhost',
    description: 'From address when `sendFromEmailAddress` is not given.',
    group: 'email',
  }),
  approvalEmails: setting({
    env: 'SIGNET_APPROVAL_EMAILS',
    schema: trueOrFalse(),
    defaultText: 'on with `SIGNET_SMTP_URL`',
    description:
      'Email each user who may vote on an activity that waits for approvals, once per activity and user, with a link to it. On when `SIGNET_SMTP_URL` is set; `false` turns it off; without `SIGNET_SMTP_URL` none are sent. See [Approval emails](email.md#approval-emails).',
    group: 'email',
  }),
  allowHttpLogos: setting({
    env: 'SIGNET_ALLOW_HTTP_LOGOS',
    schema: trueOrFalse(),
    default: 'false',
    description: 'Accept `http://` logo URLs (`emailCustomization.logoUrl`) besides `https://`. For tests and closed networks.',
    group: 'email',
  }),
  logoAllowPrivate: setting({
    env: 'SIGNET_LOGO_ALLOW_PRIVATE',
    schema: trueOrFalse(),
    default: 'false',
    description:
      'Fetch logos from any address, not only public unicast ones (private, loopback, link-local, reserved). For tests only: it opens server-side request forgery.',
    group: 'email',
  }),
  /** Read together into Config's `sms` (src/config.ts): the provider and its settings. */
  sms: {
    provider: setting({
      env: 'SIGNET_SMS_PROVIDER',
      schema: oneOf(['twilio'], '; leave it unset to use the development SMS log'),
      description: 'SMS provider: `twilio`. Unset: development SMS log (`SIGNET_DATA_DIR/sms.log`).',
      group: 'sms',
    }),
    accountSid: setting({
      env: 'SIGNET_TWILIO_ACCOUNT_SID',
      schema: matching('AC + 32 hex', /^AC[0-9a-fA-F]{32}$/, 'must be AC followed by 32 hex digits'),
      defaultText: '–',
      description: 'With `twilio`: the account SID (`AC` + 32 hex digits).',
      group: 'sms',
    }),
    authToken: setting({
      env: 'SIGNET_TWILIO_AUTH_TOKEN',
      schema: matching('secret', /^[\x21-\x7e]{8,256}$/, "must be the account's auth token, printable characters without spaces"),
      defaultText: '–',
      description: "With `twilio`: the account's auth token.",
      secret: 'value',
      group: 'sms',
    }),
    from: setting({
      env: 'SIGNET_TWILIO_FROM',
      schema: matching(
        'E.164 or sender id',
        /^(\+[1-9][0-9]{6,14}|[A-Za-z0-9 ]{1,11})$/,
        'must be an E.164 number such as +14155550100 or an alphanumeric sender id of up to 11 characters',
      ),
      defaultText: '–',
      description: 'With `twilio`: the sending number in E.164 (`+14155550100`) or an alphanumeric sender id. Set this or the next one.',
      group: 'sms',
    }),
    messagingServiceSid: setting({
      env: 'SIGNET_TWILIO_MESSAGING_SERVICE_SID',
      schema: matching('MG + 32 hex', /^MG[0-9a-fA-F]{32}$/, 'must be MG followed by 32 hex digits'),
      defaultText: '–',
      description: 'With `twilio`: a Messaging Service (`MG…`) that picks the sender, instead of `SIGNET_TWILIO_FROM`.',
      group: 'sms',
    }),
    baseUrl: setting({
      env: 'SIGNET_TWILIO_BASE_URL',
      schema: baseUrl('https:', 'http:'),
      default: 'https://api.twilio.com',
      description: "Where Twilio's REST API is reached (a proxy, or a loopback server in tests).",
      group: 'sms',
    }),
  },
  /** Read together into Config's `pkcs11` (src/config.ts): all four or none. */
  pkcs11: {
    module: setting({
      env: 'SIGNET_PKCS11_MODULE',
      schema: matching('file path', /^[^\0]{1,4096}$/, 'must be the path of a PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so'),
      description:
        'The PKCS#11 library of the HSM, e.g. `/usr/lib/softhsm/libsofthsm2.so`. Set with the three next ones: wallet keys\' data keys are then wrapped in the HSM, under the key `SIGNET_PKCS11_KEY_LABEL`, instead of under the deployment secret (what the deployment secret sealed before keeps opening; `signet keys rewrap` re-seals it under the HSM\'s key). Needs the optional package `pkcs11js`. Unset: no HSM. See [A key-encryption key in an HSM](operations.md#a-key-encryption-key-in-an-hsm).',
      group: 'hsm',
    }),
    tokenLabel: setting({
      env: 'SIGNET_PKCS11_TOKEN_LABEL',
      schema: matching('label', /^[A-Za-z0-9_-]{1,32}$/, 'must be the token\'s label: 1 to 32 letters, digits, "_" or "-"'),
      defaultText: '–',
      description: 'With `SIGNET_PKCS11_MODULE`: the label of the token that holds the key.',
      group: 'hsm',
    }),
    pin: setting({
      env: 'SIGNET_PKCS11_PIN',
      schema: matching('secret', /^[\x20-\x7e]{1,255}$/, 'must be the user PIN of the token, 1 to 255 printable characters'),
      defaultText: '–',
      description: 'With `SIGNET_PKCS11_MODULE`: the user PIN of the token. Never logged nor shown.',
      secret: 'value',
      group: 'hsm',
    }),
    keyLabel: setting({
      env: 'SIGNET_PKCS11_KEY_LABEL',
      schema: matching('label', /^[A-Za-z0-9_-]{1,32}$/, 'must be the key\'s label: 1 to 32 letters, digits, "_" or "-"'),
      defaultText: '–',
      description:
        'With `SIGNET_PKCS11_MODULE`: the label of the AES-256 key in the token (exactly one key has it; sensitive, not extractable), made with the token\'s own tools. Signet never creates it. With the token label at most 43 characters together (the key-encryption key\'s id names both).',
      group: 'hsm',
    }),
    previousKeyLabel: setting({
      env: 'SIGNET_PKCS11_PREVIOUS_KEY_LABEL',
      schema: matching('label', /^[A-Za-z0-9_-]{1,32}$/, 'must be the label of the previous key: 1 to 32 letters, digits, "_" or "-"'),
      defaultText: 'unset',
      description:
        'Optional, with the four others: the label of the key of the same token that `SIGNET_PKCS11_KEY_LABEL` replaces. Values sealed under it keep opening (nothing new is sealed under it) until `signet keys rewrap` has re-sealed them under the new key; then unset it. See [Moving to an HSM, rotating](operations.md#moving-to-an-hsm-rotating).',
      group: 'hsm',
    }),
  },
  webhookAllowInsecure: setting({
    env: 'SIGNET_WEBHOOK_ALLOW_INSECURE',
    schema: trueOrFalse(),
    default: 'false',
    description:
      'Accept `http://` webhook URLs and deliver to any address, not only public unicast ones (loopback, private, link-local). For tests and development only: it opens server-side request forgery.',
    group: 'delivery',
  }),
  outboxPollMs: setting({
    env: 'SIGNET_OUTBOX_POLL_MS',
    schema: wholeNumber(10, 600_000, 'ms'),
    default: '500',
    description: 'How often the delivery worker looks for due messages (it is also woken when an activity queues one).',
    group: 'delivery',
  }),
  outboxMaxAttempts: setting({
    env: 'SIGNET_OUTBOX_MAX_ATTEMPTS',
    schema: wholeNumber(1, 100),
    default: '8',
    description: 'Delivery attempts (exponential backoff) before a message is marked failed.',
    group: 'delivery',
  }),
  outboxWorker: setting({
    env: 'SIGNET_OUTBOX_WORKER',
    schema: trueOrFalse(),
    default: 'true',
    description: 'Run the delivery worker in this process.',
    group: 'delivery',
  }),
  outboxRetentionDays: setting({
    env: 'SIGNET_OUTBOX_RETENTION_DAYS',
    schema: wholeNumber(1, 3650, 'days'),
    default: '7',
    description:
      'How long finished OTP messages (sent, failed) stay listed in the delivery state before the housekeeping job deletes them (their code is erased at once anyway).',
    group: 'delivery',
  }),
};
