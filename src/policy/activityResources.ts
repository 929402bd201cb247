// What each kind of activity does, as policies see it: `activity.resource` and `activity.action`, and
// the kind itself (`activity.kind`). One plain table keyed by kind, so that each entry can later move
// into its activity handler file.

export interface ActivityResource {
  readonly resource: string;
  readonly action: string;
}

const entry = (resource: string, action: string): ActivityResource => ({ resource, action });

export const ACTIVITY_RESOURCES: Readonly<Record<string, ActivityResource>> = Object.freeze({
  INIT_OTP_AUTH: entry('AUTH', 'CREATE'),
  OTP_AUTH: entry('AUTH', 'CREATE'),
  OTP_LOGIN: entry('AUTH', 'CREATE'),
  STAMP_LOGIN: entry('AUTH', 'CREATE'),
  INIT_OTP: entry('OTP', 'CREATE'),
  VERIFY_OTP: entry('OTP', 'VERIFY'),
  CREATE_SMART_CONTRACT_INTERFACE: entry('SMART_CONTRACT_INTERFACE', 'CREATE'),
  DELETE_SMART_CONTRACT_INTERFACE: entry('SMART_CONTRACT_INTERFACE', 'DELETE'),
  CREATE_USERS: entry('USER', 'CREATE'),
  CREATE_API_ONLY_USERS: entry('USER', 'CREATE'),
  UPDATE_USER: entry('USER', 'UPDATE'),
  UPDATE_USER_NAME: entry('USER', 'UPDATE'),
  UPDATE_USER_EMAIL: entry('USER', 'UPDATE'),
  UPDATE_USER_PHONE_NUMBER: entry('USER', 'UPDATE'),
  DELETE_USERS: entry('USER', 'DELETE'),
  CREATE_USER_TAG: entry('USER', 'CREATE'),
  UPDATE_USER_TAG: entry('USER', 'UPDATE'),
  DELETE_USER_TAGS: entry('USER', 'DELETE'),
  CREATE_API_KEYS: entry('CREDENTIAL', 'CREATE'),
  DELETE_API_KEYS: entry('CREDENTIAL', 'DELETE'),
  CREATE_AUTHENTICATORS: entry('CREDENTIAL', 'CREATE'),
  DELETE_AUTHENTICATORS: entry('CREDENTIAL', 'DELETE'),
  CREATE_POLICY: entry('POLICY', 'CREATE'),
  CREATE_POLICIES: entry('POLICY', 'CREATE'),
  UPDATE_POLICY: entry('POLICY', 'UPDATE'),
  DELETE_POLICY: entry('POLICY', 'DELETE'),
  CREATE_WEBHOOK_ENDPOINT: entry('WEBHOOK_ENDPOINT', 'CREATE'),
  UPDATE_WEBHOOK_ENDPOINT: entry('WEBHOOK_ENDPOINT', 'UPDATE'),
  DELETE_WEBHOOK_ENDPOINT: entry('WEBHOOK_ENDPOINT', 'DELETE'),
  UPDATE_ROOT_QUORUM: entry('ORGANIZATION', 'UPDATE'),
  CREATE_SUB_ORGANIZATION: entry('ORGANIZATION', 'CREATE'),
  DELETE_SUB_ORGANIZATION: entry('ORGANIZATION', 'DELETE'),
  APPROVE_ACTIVITY: entry('ACTIVITY', 'APPROVE'),
  REJECT_ACTIVITY: entry('ACTIVITY', 'REJECT'),
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
