// Auth proxy configurations for operators: create one (its dedicated user and API key in the same
// transaction, the key's private half sealed for the store under the key-encryption key, never
// answered), list them, delete one (its user removed, its key revoked). What the proxy may do in the
// organization is what its root quorum and policies allow that user: the answer of create names the
// policy to submit for it.
import { randomUUID } from 'node:crypto';
import { invalidField, notFound } from '../errors.ts';
import { sealKeyMaterial } from '../keys/custody/sealKeyMaterial.ts';
import type { KeyEncryptionKey } from '../keys/custody/keyEncryptionKey.ts';
import {
  AUTH_PROXY_API_KEY,
  deleteAuthProxyConfig as deleteStoredConfig,
  insertAuthProxyConfig,
  listAuthProxyConfigs as listStoredConfigs,
  type AuthProxyConfig,
  type SignupWallet,
} from '../store/authProxyConfigs.ts';
import { insertApiKey } from '../store/apiKeys.ts';
import type { Database } from '../store/db.ts';
import { insertUser, removeUser } from '../store/users.ts';
import type { AuthProxyConfigAnswer, CreatedAuthProxyConfig, DeletedAuthProxyConfig } from './answers.ts';
import { generateApiKeyPair, requireOrganization } from './organizations.ts';

/** The methods a configuration may enable; `otp` stands for email and sms. */
export const AUTH_PROXY_METHODS = ['email', 'sms', 'passkey', 'oauth'] as const;
export type AuthProxyMethod = (typeof AUTH_PROXY_METHODS)[number];

/** The activities the proxy submits, as policies name them. */
export const AUTH_PROXY_ACTIVITY_TYPES = [
  'ACTIVITY_TYPE_INIT_OTP_V3',
  'ACTIVITY_TYPE_VERIFY_OTP_V2',
  'ACTIVITY_TYPE_OTP_LOGIN_V2',
  'ACTIVITY_TYPE_OAUTH_LOGIN',
  'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8',
] as const;

/** The account each address format of a default wallet gets: its first account on the chain's usual path. */
const DEFAULT_ACCOUNTS: Record<string, SignupWallet['accounts'][number]> = {
  ADDRESS_FORMAT_ETHEREUM: { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
  ADDRESS_FORMAT_SOLANA: { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' },
};
export const DEFAULT_WALLET_FORMATS = Object.keys(DEFAULT_ACCOUNTS);

export interface AuthProxyConfigInput {
  allowedOrigins: string[];
  /** Comma-separated: email, sms, otp (both), passkey, oauth. */
  methods?: string;
  appName?: string;
  otpLength?: number;
  otpAlphabet?: 'alphanumeric' | 'numeric';
  otpExpirationSeconds?: number;
  sessionSeconds?: number;
  walletName?: string;
  walletAccounts?: string[];
}

/** The methods of a comma-separated list, each once, or a 400 naming the field. */
export function parseMethods(text: string): AuthProxyMethod[] {
  const methods = new Set<AuthProxyMethod>();
  for (const word of text.split(',').map((w) => w.trim().toLowerCase())) {
    if (word === 'otp') {
      methods.add('email');
      methods.add('sms');
    } else if ((AUTH_PROXY_METHODS as readonly string[]).includes(word)) {
      methods.add(word as AuthProxyMethod);
    } else {
      throw invalidField('methods', `${JSON.stringify(word.slice(0, 40))} is not a method; give a comma-separated list of otp, email, sms, passkey and oauth`);
    }
  }
  return [...methods];
}

/** The origin as browsers send it (scheme, host, port), or a 400 naming the field. */
export function canonicalOrigin(text: string, field = 'allowedOrigins'): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidField(field, `${JSON.stringify(text.slice(0, 100))} is not an origin such as https://app.example.com`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== text.replace(/\/$/, '') || url.pathname !== '/' || url.search || url.hash) {
    throw invalidField(field, `${JSON.stringify(text.slice(0, 100))} is not an origin: give the scheme, host and port only, e.g. https://app.example.com`);
  }
  return url.origin;
}

/** The policy that lets the configuration's user submit what the proxy submits. */
export function proxyPolicy(userId: string): CreatedAuthProxyConfig['policy'] {
  return {
    policyName: `auth proxy ${userId.slice(0, 8)}`,
    effect: 'EFFECT_ALLOW',
    condition: AUTH_PROXY_ACTIVITY_TYPES.map((type) => `activity.type == '${type}'`).join(' || '),
    consensus: `approvers.any(user, user.id == '${userId}')`,
  };
}

export function configAnswer(config: AuthProxyConfig): AuthProxyConfigAnswer {
  const wallet = config.signupDefaults.wallet;
  return {
    configId: config.id,
    organizationId: config.organizationId,
    userId: config.userId,
    apiKeyId: config.apiKeyId,
    allowedOrigins: config.allowedOrigins,
    methods: config.methods as AuthProxyMethod[],
    appName: config.otpSettings.appName,
    otpLength: config.otpSettings.otpLength,
    otpAlphanumeric: config.otpSettings.alphanumeric,
    otpExpirationSeconds: config.otpSettings.expirationSeconds,
    sessionSeconds: config.sessionSeconds,
    defaultWallet: wallet ? { walletName: wallet.walletName, accounts: wallet.accounts } : null,
    createdAt: config.createdAt.toISOString(),
  };
}

/**
 * Creates the configuration, its dedicated user (outside the root quorum) and that user's API key, in
 * one transaction; the private key is sealed under `kek` for this row and never answered.
 */
export async function createAuthProxyConfig(db: Database, kek: KeyEncryptionKey, organizationId: string, input: AuthProxyConfigInput): Promise<CreatedAuthProxyConfig> {
  const allowedOrigins = [...new Set(input.allowedOrigins.map((origin) => canonicalOrigin(origin)))];
  const methods = parseMethods(input.methods ?? 'otp,passkey');
  const accounts = (input.walletAccounts ?? []).map((format) => DEFAULT_ACCOUNTS[format]!);
  if (accounts.length > 0 && input.walletName === undefined) throw invalidField('walletName', 'is required with walletAccounts: name the wallet a new sub-organization gets');
  const wallet = input.walletName !== undefined ? { walletName: input.walletName, accounts } : undefined;
  const id = randomUUID();
  const userId = randomUUID();
  const apiKeyId = randomUUID();
  const pair = generateApiKeyPair();
  const sealed = await sealKeyMaterial(kek, { organizationId, rowId: id, kind: AUTH_PROXY_API_KEY }, Buffer.from(pair.apiPrivateKey, 'hex'));
  const config = {
    id,
    organizationId,
    userId,
    apiKeyId,
    sealedApiPrivateKey: sealed,
    allowedOrigins,
    methods,
    signupDefaults: wallet ? { wallet } : {},
    otpSettings: {
      appName: input.appName ?? new URL(allowedOrigins[0]!).hostname,
      otpLength: input.otpLength ?? 6,
      alphanumeric: (input.otpAlphabet ?? 'numeric') === 'alphanumeric',
      expirationSeconds: input.otpExpirationSeconds ?? 300,
    },
    sessionSeconds: input.sessionSeconds ?? 900,
  };
  const now = new Date();
  await db.transaction(async (tx) => {
    await requireOrganization(tx, organizationId);
    await insertUser(tx, { id: userId, organizationId, userName: `auth proxy ${id}` });
    const inserted = await insertApiKey(tx, { id: apiKeyId, organizationId, userId, name: `auth proxy ${id}`, publicKey: pair.apiPublicKey, expiresAt: null });
    if (!inserted) throw new Error('a freshly generated API key was already registered');
    await insertAuthProxyConfig(tx, config, now);
  });
  return {
    ...configAnswer({ ...config, apiPublicKey: pair.apiPublicKey, createdAt: now }),
    policy: proxyPolicy(userId),
  };
}

/** The configurations, newest first; of one organization when it is given. */
export async function listAuthProxyConfigs(db: Database, organizationId?: string): Promise<AuthProxyConfigAnswer[]> {
  if (organizationId !== undefined) await requireOrganization(db, organizationId);
  return (await listStoredConfigs(db, organizationId)).map(configAnswer);
}

/** Deletes the configuration and removes its user (its API key revoked with it). */
export async function deleteAuthProxyConfig(db: Database, configId: string): Promise<DeletedAuthProxyConfig> {
  const deleted = await deleteStoredConfig(db, configId);
  if (!deleted) throw notFound('AUTH_PROXY_CONFIG_NOT_FOUND', `no auth proxy configuration ${configId}; list them with \`signet authproxy list\``);
  await removeUser(db, deleted.organizationId, deleted.userId);
  return { configId, removedUserId: deleted.userId };
}
