// Auth proxy configurations (table auth_proxy_configs): an organization's settings for the routes a
// browser app calls with no backend (/v1/otp_init_v2, /v1/signup_v2, …), and the dedicated user and
// API key they act as, its private key sealed by the caller. Here: the row written with its user and
// key, the reads (one by id, an organization's, whether any allows an origin) and the delete.
import type { Queryable } from './db.ts';
import { run, sql } from './sql.ts';

/** The kind the dedicated user's private key is sealed as (keys/custody's SealContext), for this row's id. */
export const AUTH_PROXY_API_KEY = 'auth_proxy_api_key';

/** The wallet a sub-organization made through the proxy gets when the sign-up names none. */
export interface SignupWallet {
  walletName: string;
  accounts: Array<{ curve: string; pathFormat: string; path: string; addressFormat: string }>;
}

/** What init_otp is given for an OTP the proxy starts. */
export interface ProxyOtpSettings {
  /** The app name the OTP messages carry. */
  appName: string;
  otpLength: number;
  alphanumeric: boolean;
  expirationSeconds: number;
}

export interface AuthProxyConfig {
  id: string;
  organizationId: string;
  userId: string;
  apiKeyId: string;
  /** The API key's public key (compressed hex), as api_keys holds it. */
  apiPublicKey: string;
  sealedApiPrivateKey: string;
  allowedOrigins: string[];
  methods: string[];
  signupDefaults: { wallet?: SignupWallet };
  otpSettings: ProxyOtpSettings;
  sessionSeconds: number;
  createdAt: Date;
}

export type NewAuthProxyConfig = Omit<AuthProxyConfig, 'apiPublicKey' | 'createdAt'>;

interface Row {
  id: string;
  organization_id: string;
  user_id: string;
  api_key_id: string;
  public_key: string;
  sealed_api_private_key: string;
  allowed_origins: string[];
  methods: string[];
  signup_defaults: AuthProxyConfig['signupDefaults'];
  otp_settings: ProxyOtpSettings;
  session_seconds: number;
  created_at: Date | string;
}

const SELECT = sql`SELECT c.id, c.organization_id, c.user_id, c.api_key_id, k.public_key, c.sealed_api_private_key, c.allowed_origins,
                          c.methods, c.signup_defaults, c.otp_settings, c.session_seconds, c.created_at
                     FROM auth_proxy_configs c JOIN api_keys k ON k.id = c.api_key_id`;

function fromRow(row: Row): AuthProxyConfig {
  return {
    id: row.id,
    organizationId: row.organization_id,
    userId: row.user_id,
    apiKeyId: row.api_key_id,
    apiPublicKey: row.public_key,
    sealedApiPrivateKey: row.sealed_api_private_key,
    allowedOrigins: row.allowed_origins,
    methods: row.methods,
    signupDefaults: row.signup_defaults,
    otpSettings: row.otp_settings,
    sessionSeconds: row.session_seconds,
    createdAt: new Date(row.created_at),
  };
}

/** Writes the configuration (its user and key written before it, in the same transaction). */
export async function insertAuthProxyConfig(db: Queryable, config: NewAuthProxyConfig, now: Date): Promise<void> {
  await run(
    db,
    sql`INSERT INTO auth_proxy_configs (id, organization_id, user_id, api_key_id, sealed_api_private_key, allowed_origins, methods,
                                        signup_defaults, otp_settings, session_seconds, created_at)
        VALUES (${config.id}::uuid, ${config.organizationId}::uuid, ${config.userId}::uuid, ${config.apiKeyId}::uuid, ${config.sealedApiPrivateKey},
                ${config.allowedOrigins}::text[], ${config.methods}::text[], ${JSON.stringify(config.signupDefaults)}::jsonb,
                ${JSON.stringify(config.otpSettings)}::jsonb, ${config.sessionSeconds}::int, ${now}::timestamptz)`,
  );
}

/** The configuration of this id, or undefined. */
export async function findAuthProxyConfig(db: Queryable, id: string): Promise<AuthProxyConfig | undefined> {
  const [row] = await run<Row>(db, sql`${SELECT} WHERE c.id = ${id}::uuid`);
  return row ? fromRow(row) : undefined;
}

/** Every configuration, newest first; of one organization when it is given (at most 500). */
export async function listAuthProxyConfigs(db: Queryable, organizationId?: string): Promise<AuthProxyConfig[]> {
  const rows = await run<Row>(
    db,
    organizationId === undefined
      ? sql`${SELECT} ORDER BY c.created_at DESC, c.id DESC LIMIT 500`
      : sql`${SELECT} WHERE c.organization_id = ${organizationId}::uuid ORDER BY c.created_at DESC, c.id DESC LIMIT 500`,
  );
  return rows.map(fromRow);
}

/** Whether some configuration allows this origin: what a preflight, which carries no configuration id, is answered by. */
export async function anyAuthProxyConfigAllows(db: Queryable, origin: string): Promise<boolean> {
  const rows = await run<{ one: number }>(db, sql`SELECT 1 AS one FROM auth_proxy_configs WHERE ${origin} = ANY (allowed_origins) LIMIT 1`);
  return rows.length > 0;
}

/** Deletes the configuration; the deleted one, or undefined when there was none. */
export async function deleteAuthProxyConfig(db: Queryable, id: string): Promise<{ organizationId: string; userId: string } | undefined> {
  const [row] = await run<{ organization_id: string; user_id: string }>(
    db,
    sql`DELETE FROM auth_proxy_configs WHERE id = ${id}::uuid RETURNING organization_id, user_id`,
  );
  return row ? { organizationId: row.organization_id, userId: row.user_id } : undefined;
}
