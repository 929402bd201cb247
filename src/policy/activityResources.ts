// What each kind of activity does, as policies see it: `activity.resource` and `activity.action`, and
// the kind itself (`activity.kind`). Each activity handler declares its resource and action; this
// module is pure and may not import the handlers, so the table below is written from them by
// `npm run -s generate` and test/declarations.test.ts fails when it differs from what they declare.

/** The resources an activity may act on (`activity.resource`). */
export const RESOURCES = ['AUTH', 'OTP', 'SMART_CONTRACT_INTERFACE', 'USER', 'CREDENTIAL', 'POLICY', 'WEBHOOK_ENDPOINT', 'ORGANIZATION', 'ACTIVITY', 'WALLET', 'PRIVATE_KEY'] as const;
export type Resource = (typeof RESOURCES)[number];

/**
 * What an activity does to its resource (`activity.action`). EXPORT and IMPORT are the wallet and
 * private key exports and imports', as the ecosystem classes them (WALLET or PRIVATE_KEY, EXPORT or IMPORT).
 */
export const ACTIONS = ['CREATE', 'UPDATE', 'DELETE', 'VERIFY', 'APPROVE', 'REJECT', 'SIGN', 'EXPORT', 'IMPORT'] as const;
export type Action = (typeof ACTIONS)[number];

export interface ActivityResource {
  readonly resource: Resource;
  readonly action: Action;
}

// Written from the activity handlers by `npm run -s generate`: do not edit by hand.
export const ACTIVITY_RESOURCES: Readonly<Record<string, ActivityResource>> = Object.freeze({
  INIT_OTP_AUTH: { resource: 'AUTH', action: 'CREATE' },
  INIT_OTP: { resource: 'OTP', action: 'CREATE' },
  VERIFY_OTP: { resource: 'OTP', action: 'VERIFY' },
  OTP_LOGIN: { resource: 'AUTH', action: 'CREATE' },
  STAMP_LOGIN: { resource: 'AUTH', action: 'CREATE' },
  OAUTH_LOGIN: { resource: 'AUTH', action: 'CREATE' },
  OTP_AUTH: { resource: 'AUTH', action: 'CREATE' },
  CREATE_READ_WRITE_SESSION: { resource: 'AUTH', action: 'CREATE' },
  CREATE_READ_ONLY_SESSION: { resource: 'AUTH', action: 'CREATE' },
  EMAIL_AUTH: { resource: 'AUTH', action: 'CREATE' },
  INIT_USER_EMAIL_RECOVERY: { resource: 'AUTH', action: 'CREATE' },
  RECOVER_USER: { resource: 'AUTH', action: 'CREATE' },
  CREATE_SMART_CONTRACT_INTERFACE: { resource: 'SMART_CONTRACT_INTERFACE', action: 'CREATE' },
  DELETE_SMART_CONTRACT_INTERFACE: { resource: 'SMART_CONTRACT_INTERFACE', action: 'DELETE' },
  CREATE_USERS: { resource: 'USER', action: 'CREATE' },
  UPDATE_USER: { resource: 'USER', action: 'UPDATE' },
  UPDATE_USER_EMAIL: { resource: 'USER', action: 'UPDATE' },
  UPDATE_USER_PHONE_NUMBER: { resource: 'USER', action: 'UPDATE' },
  UPDATE_USER_NAME: { resource: 'USER', action: 'UPDATE' },
  DELETE_USERS: { resource: 'USER', action: 'DELETE' },
  CREATE_AUTHENTICATORS: { resource: 'CREDENTIAL', action: 'CREATE' },
  DELETE_AUTHENTICATORS: { resource: 'CREDENTIAL', action: 'DELETE' },
  CREATE_OAUTH_PROVIDERS: { resource: 'CREDENTIAL', action: 'CREATE' },
  DELETE_OAUTH_PROVIDERS: { resource: 'CREDENTIAL', action: 'DELETE' },
  CREATE_USER_TAG: { resource: 'USER', action: 'CREATE' },
  CREATE_API_KEYS: { resource: 'CREDENTIAL', action: 'CREATE' },
  DELETE_API_KEYS: { resource: 'CREDENTIAL', action: 'DELETE' },
  DELETE_USER_TAGS: { resource: 'USER', action: 'DELETE' },
  CREATE_POLICY: { resource: 'POLICY', action: 'CREATE' },
  CREATE_POLICIES: { resource: 'POLICY', action: 'CREATE' },
  UPDATE_POLICY: { resource: 'POLICY', action: 'UPDATE' },
  DELETE_POLICY: { resource: 'POLICY', action: 'DELETE' },
  DELETE_POLICIES: { resource: 'POLICY', action: 'DELETE' },
  UPDATE_ROOT_QUORUM: { resource: 'ORGANIZATION', action: 'UPDATE' },
  CREATE_SUB_ORGANIZATION: { resource: 'ORGANIZATION', action: 'CREATE' },
  DELETE_SUB_ORGANIZATION: { resource: 'ORGANIZATION', action: 'DELETE' },
  CREATE_WEBHOOK_ENDPOINT: { resource: 'WEBHOOK_ENDPOINT', action: 'CREATE' },
  UPDATE_WEBHOOK_ENDPOINT: { resource: 'WEBHOOK_ENDPOINT', action: 'UPDATE' },
  DELETE_WEBHOOK_ENDPOINT: { resource: 'WEBHOOK_ENDPOINT', action: 'DELETE' },
  CREATE_WALLET: { resource: 'WALLET', action: 'CREATE' },
  CREATE_WALLET_ACCOUNTS: { resource: 'WALLET', action: 'CREATE' },
  UPDATE_WALLET: { resource: 'WALLET', action: 'UPDATE' },
  DELETE_WALLETS: { resource: 'WALLET', action: 'DELETE' },
  CREATE_PRIVATE_KEYS: { resource: 'PRIVATE_KEY', action: 'CREATE' },
  DELETE_PRIVATE_KEYS: { resource: 'PRIVATE_KEY', action: 'DELETE' },
  SIGN_RAW_PAYLOAD: { resource: 'PRIVATE_KEY', action: 'SIGN' },
  SIGN_RAW_PAYLOADS: { resource: 'PRIVATE_KEY', action: 'SIGN' },
  SIGN_TRANSACTION: { resource: 'PRIVATE_KEY', action: 'SIGN' },
  EXPORT_WALLET: { resource: 'WALLET', action: 'EXPORT' },
  EXPORT_WALLET_ACCOUNT: { resource: 'WALLET', action: 'EXPORT' },
  INIT_IMPORT_WALLET: { resource: 'WALLET', action: 'IMPORT' },
  IMPORT_WALLET: { resource: 'WALLET', action: 'IMPORT' },
  EXPORT_PRIVATE_KEY: { resource: 'PRIVATE_KEY', action: 'EXPORT' },
  INIT_IMPORT_PRIVATE_KEY: { resource: 'PRIVATE_KEY', action: 'IMPORT' },
  IMPORT_PRIVATE_KEY: { resource: 'PRIVATE_KEY', action: 'IMPORT' },
  APPROVE_ACTIVITY: { resource: 'ACTIVITY', action: 'APPROVE' },
  REJECT_ACTIVITY: { resource: 'ACTIVITY', action: 'REJECT' },
});

/** `ACTIVITY_TYPE_INIT_OTP_AUTH_V3` → `INIT_OTP_AUTH`: the type without its prefix and version suffix. */
export function activityKind(type: string): string {
  return type.replace(/^ACTIVITY_TYPE_/, '').replace(/_V[0-9]+$/, '');
}

/** The resource and action of an activity type, or undefined for a kind the table does not list. */
export function activityResource(type: string): ActivityResource | undefined {
  const kind = activityKind(type);
  return Object.hasOwn(ACTIVITY_RESOURCES, kind) ? ACTIVITY_RESOURCES[kind] : undefined;
}
