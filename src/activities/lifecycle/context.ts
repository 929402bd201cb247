// What a decision and an execution need besides the activity: the lifecycle's state (its
// dependencies, the clock, the organizations' authorities remembered, the group-commit writer), and
// the reads every step shares: what a reader may still do with a waiting activity, whether the
// authority changed since it was read, whether a parent's credential may submit here, and the
// ExecutionContext a handler executes in.
import { OidcVerifier } from '../../auth/oidc/verifyIdToken.ts';
import { READ_ONLY_SESSION, type Principal } from '../../auth/principal.ts';
import { credentialRefused, notFound, permissionDenied } from '../../errors.ts';
import { ActivityWriter } from '../../store/activityWriter.ts';
import type { ActivityRecord } from '../../store/activities.ts';
import { authorityVersionFor } from '../../store/authority.ts';
import type { Queryable } from '../../store/db.ts';
import { findOrganizationPlace } from '../../store/organizations.ts';
import { systemClock, type Clock } from '../../wire/clock.ts';
import type { ActivityHandler, ActivityView, ExecutionContext } from '../handler.ts';
import type { Envelope } from '../wire/envelope.ts';
import { ACTIVITY_STATUS } from '../wire/status.ts';
import { accessOf, Authorities, intentOf, NO_ACCESS, type Access, type Authority } from './decide.ts';
import { handlerOfType } from './intake.ts';
import type { LifecycleDependencies } from './model.ts';
import { prepare } from './prepare.ts';
import { viewNeeded, viewOf } from './view.ts';

/** The lifecycle's state, made once per server and shared by every request. */
export interface Lifecycle {
  readonly deps: LifecycleDependencies;
  readonly now: Clock;
  /** Each organization's root quorum and policies, remembered per version of its authority. */
  readonly authorities: Authorities;
  /** Writes new activities, grouped under load (store/activityWriter.ts). */
  readonly writer: ActivityWriter;
  /** Verifies OpenID Connect id tokens, its issuers' keys cached for every request. */
  readonly oidc: OidcVerifier;
}

export function lifecycleOf(deps: LifecycleDependencies): Lifecycle {
  const now = deps.now ?? systemClock;
  const oidc = deps.oidc ?? new OidcVerifier({ issuers: deps.config.oidcIssuers, clock: now });
  return { deps, now, authorities: new Authorities(), writer: new ActivityWriter(deps.db), oidc };
}

/** What `reader` may still do with the activity (canApprove, canReject): only a waiting one is read for it. */
export async function accessFor(lifecycle: Lifecycle, record: ActivityRecord, reader: Principal): Promise<Access> {
  // Only the organization's own users approve: a parent's credential reads a sub-organization's activities, nothing more.
  // A read-only session (X-Session) votes on nothing.
  if (record.status !== ACTIVITY_STATUS.CONSENSUS_NEEDED || reader.organizationId !== record.organizationId || reader.scheme === READ_ONLY_SESSION) return NO_ACCESS;
  const { db, handlers } = lifecycle.deps;
  const authority = await lifecycle.authorities.of(db, record.organizationId);
  const handler = handlerOfType(handlers, record.type);
  // Who may vote can depend on what a waiting signature signs (a policy reading eth.tx): viewed as a vote would.
  let view: ActivityView | undefined;
  if (handler && viewNeeded(handler, authority)) {
    const context = { organizationId: record.organizationId, principal: reader, now: lifecycle.now(), db, config: lifecycle.deps.config };
    const intent = intentOf(record);
    view = await viewOf(handler, context, intent, await prepare(handler, context, intent), authority);
  }
  return accessOf(authority, record, await lifecycle.authorities.approverOf(db, authority, reader), handler, view);
}

/**
 * Before a refusal is answered: true when the organization's authority changed since `authority`
 * was read (it is forgotten; decide again); a 401 when the principal's credential may no longer be
 * used. A refusal writes nothing, so no statement would otherwise check either.
 */
export async function changedSince(lifecycle: Lifecycle, authority: Authority, principal: Principal, db: Queryable): Promise<boolean> {
  const current = await authorityVersionFor(db, principal.credential, authority.organizationId);
  if (current.refused) {
    lifecycle.deps.onCredentialRefused?.(principal);
    throw credentialRefused(principal, current.refused, lifecycle.now());
  }
  if (current.version === authority.version) return false;
  lifecycle.authorities.forget(authority.organizationId);
  return true;
}

/**
 * A 403 unless a credential of the organization's parent may submit this activity in it (the
 * handler says so: the auth activities), and a 404 when the sub-organization was deleted.
 */
export async function parentMaySubmit(lifecycle: Lifecycle, handler: Pick<ActivityHandler, 'parentMaySubmit'>, envelope: Envelope): Promise<void> {
  if (!handler.parentMaySubmit) {
    // The list is the handlers' own (parentMaySubmit), so it names every login activity there is.
    const logins = [...new Set(lifecycle.deps.handlers.filter((one) => one.parentMaySubmit).map((one) => one.path))].join(', ');
    throw permissionDenied(
      'PARENT_MAY_NOT_SUBMIT',
      `${envelope.type} in organization ${envelope.organizationId} needs a credential of that organization: a credential of its ` +
        `parent organization reads a sub-organization and submits only the login activities there (${logins}); stamp with a credential of the sub-organization`,
    );
  }
  const place = await findOrganizationPlace(lifecycle.deps.db, envelope.organizationId);
  if (place?.deletedAt) throw notFound('ORGANIZATION_DELETED', `organization ${envelope.organizationId} was deleted; its activities stay readable, nothing more can be submitted there`);
}

/** The context a handler executes an activity in. */
export function executionContext(
  lifecycle: Lifecycle,
  activity: { activityId: string; organizationId: string; principal: Principal; now: Date; db: Queryable },
): ExecutionContext {
  const { config, secret, keys, kek } = lifecycle.deps;
  // Every field written out: on the hot path, properties added after a spread cost a slow path each.
  return {
    activityId: activity.activityId,
    organizationId: activity.organizationId,
    principal: activity.principal,
    now: activity.now,
    db: activity.db,
    config,
    secret,
    keys,
    kek,
    oidc: lifecycle.oidc,
  };
}
