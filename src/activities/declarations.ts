// What derives from the activity handlers' declarations (path, types, resource, action, reasons,
// summary) besides the engine's use of them: the policy module's kind table, the reasons each
// activity may answer, and the tables of docs/api.md and docs/authorization.md. `npm run -s generate`
// writes the generated text into its files; test/declarations.test.ts fails when a file differs.
import { REASONS, type Reason } from '../errors.ts';
import { activityKind, type ActivityResource, type Resource } from '../policy/index.ts';
import { schemaFields } from '../wire/schemaFields.ts';
import type { ActivityHandler } from './handler.ts';

/**
 * What the derived tables read of a route of POST /public/v1/submit/<path>: an activity handler's
 * declaration, or a vote route's (approve_activity, reject_activity), which declares the same.
 */
export type ActivityDeclaration = Pick<
  ActivityHandler,
  'path' | 'activityType' | 'otherActivityTypes' | 'resource' | 'action' | 'reasons' | 'summary' | 'parameters' | 'resultKey' | 'resultSchema' | 'rootQuorumOnly'
>;

/**
 * The reasons every activity may answer, whatever it does: a request that cannot be read or breaks
 * its schema, a refused stamp, a refused decision, a deleted sub-organization, the server's limits
 * and faults. A handler's own `reasons` come on top (test/declarations.test.ts keeps them apart).
 */
export const ACTIVITY_REASONS: readonly Reason[] = [
  'MALFORMED_REQUEST',
  'INVALID_REQUEST',
  'CONCURRENT_CHANGE',
  'STAMP_MISSING',
  'STAMP_MALFORMED',
  'BAD_SIGNATURE',
  'UNKNOWN_CREDENTIAL',
  'CREDENTIAL_REVOKED',
  'CREDENTIAL_EXPIRED',
  'SESSION_EXPIRED',
  'TIMESTAMP_STALE',
  'STAMP_REPLAYED',
  'WEBAUTHN_REJECTED',
  'WRONG_ORGANIZATION',
  'PARENT_MAY_NOT_SUBMIT',
  'REQUEST_NOT_AUTHORIZED',
  'ORGANIZATION_DELETED',
  'REQUEST_TIMEOUT',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'TOO_MANY_AUTH_FAILURES',
  'HEADERS_TOO_LARGE',
  'INTERNAL',
  'DATABASE_UNAVAILABLE',
  'AUTHORITY_CHANGING',
  'SHUTTING_DOWN',
];

/** These reasons in the order of the reasons table, each once. */
const reasonsInOrder = (reasons: readonly Reason[]) => (Object.keys(REASONS) as Reason[]).filter((reason) => reasons.includes(reason));

/** Every reason the handlers of one path may answer, in the order of the reasons table. */
export function reasonsOfActivity(handlers: readonly ActivityDeclaration[]): Reason[] {
  return reasonsInOrder([...ACTIVITY_REASONS, ...handlers.flatMap((handler) => handler.reasons)]);
}

/** The handlers grouped by path, in the registry's order (a path's first handler first). */
export function handlersByPath(handlers: readonly ActivityDeclaration[]): Map<string, ActivityDeclaration[]> {
  const paths = new Map<string, ActivityDeclaration[]>();
  for (const handler of handlers) paths.set(handler.path, [...(paths.get(handler.path) ?? []), handler]);
  return paths;
}

/** Each kind's resource and action, from its handlers; handlers of one kind that disagree are a mistake, thrown. */
export function kindResources(handlers: readonly ActivityDeclaration[]): Map<string, ActivityResource> {
  const kinds = new Map<string, ActivityResource>();
  for (const handler of handlers) {
    for (const type of [handler.activityType, ...(handler.otherActivityTypes ?? [])]) {
      const kind = activityKind(type);
      const known = kinds.get(kind);
      if (known && (known.resource !== handler.resource || known.action !== handler.action)) {
        throw new Error(`${type}: ${handler.resource} ${handler.action}, but another handler of ${kind} declares ${known.resource} ${known.action}`);
      }
      kinds.set(kind, { resource: handler.resource, action: handler.action });
    }
  }
  return kinds;
}

/** The ACTIVITY_RESOURCES declaration of src/policy/activityResources.ts, as TypeScript source. */
export function policyKindTableSource(handlers: readonly ActivityDeclaration[]): string {
  const entries = [...kindResources(handlers)].map(([kind, { resource, action }]) => `  ${kind}: { resource: '${resource}', action: '${action}' },`);
  return ['export const ACTIVITY_RESOURCES: Readonly<Record<string, ActivityResource>> = Object.freeze({', ...entries, '});'].join('\n');
}

const cell = (text: string) => text.replaceAll('|', '\\|');
const code = (text: string) => `\`${text}\``;

/** The types a path takes: its first handler's, then "(or …)" the others'. */
function typesOf(handlers: readonly ActivityDeclaration[]): string {
  const types = [...new Set(handlers.flatMap((handler) => [handler.activityType, ...(handler.otherActivityTypes ?? [])]))].map(code);
  return types.length === 1 ? types[0]! : `${types[0]} (or ${types.slice(1).join(', ')})`;
}

/** docs/api.md's activity table: one row per path. */
export function activityTable(handlers: readonly ActivityDeclaration[]): string {
  const rows = [...handlersByPath(handlers)].map(([path, group]) => {
    const first = group[0]!;
    const summary = [...new Set(group.map((handler) => handler.summary))].join(' ');
    const own = reasonsInOrder(group.flatMap((handler) => handler.reasons));
    const reasons = own.length === 0 ? '–' : own.map(code).join(', ');
    return `| \`POST /public/v1/submit/${path}\` | ${typesOf(group)} | ${code(first.resource)} ${code(first.action)} | ${cell(summary)} | ${reasons} |`;
  });
  return ['| Endpoint | Activity type | Policy resource, action | What it does | Its own error reasons |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** docs/authorization.md's table of `activity.resource` and `activity.action`: the kinds of each pair. */
export function kindTable(handlers: readonly ActivityDeclaration[]): string {
  const pairs = new Map<string, string[]>();
  for (const [kind, { resource, action }] of kindResources(handlers)) {
    const key = `${code(resource)} | ${code(action)}`;
    const rootQuorumOnly = handlers.some((handler) => handler.rootQuorumOnly && activityKind(handler.activityType) === kind);
    pairs.set(key, [...(pairs.get(key) ?? []), `${code(kind)}${rootQuorumOnly ? ' (decided by the root quorum alone)' : ''}`]);
  }
  const rows = [...pairs].map(([pair, kinds]) => `| ${kinds.join(', ')} | ${pair} |`);
  return ['| Activities (kind) | `resource` | `action` |', '|---|---|---|', ...rows].join('\n');
}

/** `create_policy` → `createPolicy`: the method of `@turnkey/http` that submits a path. */
const clientMethod = (path: string) => path.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * The activities on one resource with their parameters and result, field by field from their
 * schemas (docs/policies.md's table of the policy activities).
 */
export function resourceActivityTable(handlers: readonly ActivityDeclaration[], resource: Resource): string {
  const rows = [...handlersByPath(handlers.filter((handler) => handler.resource === resource))].map(([path, group]) => {
    const first = group[0]!;
    const result = [first.resultKey, schemaFields(first.resultSchema)].filter(Boolean).join(' ');
    return `| ${code(path)} (${code(clientMethod(path))}) | ${typesOf(group)} | ${code(schemaFields(first.parameters) ?? 'parameters')} | ${code(result)} |`;
  });
  return ['| Activity | Type | Parameters | Result |', '|---|---|---|---|', ...rows].join('\n');
}
