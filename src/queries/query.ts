// Stamped, read-only queries (POST /public/v1/query/<name>): each is one file, like the activity
// handlers. The HTTP layer parses the body, verifies the stamp over its raw bytes and checks the
// credential belongs to the body's organizationId; a query then reads in one statement that checks
// the credential again, and writes nothing.
import type { z } from 'zod';
import type { Access } from '../activities/lifecycle/decide.ts';
import type { DryRunAnswer, DryRunRequest } from '../activities/lifecycle/dryRun.ts';
import type { OidcVerifier } from '../auth/oidc/verifyIdToken.ts';
import type { Principal } from '../auth/principal.ts';
import type { ActivityRecord } from '../store/activities.ts';
import { credentialRefused } from '../errors.ts';
import type { CredentialState } from '../store/credentials.ts';
import type { Database } from '../store/db.ts';

export interface QueryContext {
  db: Database;
  principal: Principal;
  now: Date;
  /** What the principal may still do with an activity (canApprove, canReject). */
  accessFor(record: ActivityRecord): Promise<Access>;
  /** The decision a hypothetical activity would get now, as the principal asks it; nothing stored (lifecycle/dryRun.ts). */
  dryRun(request: DryRunRequest): Promise<DryRunAnswer>;
  /** Verifies OpenID Connect id tokens (list_suborgs' OIDC_TOKEN filter). */
  oidc: OidcVerifier;
}

/** What answers a query beside the store: the lifecycle (pipeline.ts) the HTTP layer and the auth proxy share. */
export interface QueryLifecycle {
  accessFor(record: ActivityRecord, reader: Principal): Promise<Access>;
  dryRun(request: DryRunRequest, principal: Principal): Promise<DryRunAnswer>;
  readonly oidc: OidcVerifier;
}

/** The context of one query asked by `principal`, the one place a QueryContext is made. */
export function queryContext(db: Database, principal: Principal, now: Date, lifecycle: QueryLifecycle): QueryContext {
  return {
    db,
    principal,
    now,
    accessFor: (record) => lifecycle.accessFor(record, principal),
    dryRun: (request) => lifecycle.dryRun(request, principal),
    oidc: lifecycle.oidc,
  };
}

export interface QueryHandler<Schema extends z.ZodType<{ organizationId: string }> = z.ZodType<{ organizationId: string }>> {
  /** Last segment of POST /public/v1/query/<path>. */
  path: string;
  /** What the query answers, one or two sentences for the OpenAPI document (markdown). */
  description?: string;
  /**
   * A sub-organization's credential may call it with its parent's id (whoami: it tells the caller
   * about itself). Otherwise, as for every request, a credential acts in its own organization and,
   * for a parent, in its sub-organizations.
   */
  fromSubOrganization?: boolean;
  /** The whole body (strict), organizationId included. */
  request: Schema;
  /** A valid request body, shown in the OpenAPI document (a test checks it validates). */
  example: z.input<Schema>;
  /** The answer described field by field, for the OpenAPI document (test/openapi.test.ts checks real answers against it). */
  answer?: z.ZodType;
  /** The answer: an object, or JSON text already written (activities). */
  run(context: QueryContext, request: z.output<Schema>): Promise<object | string>;
}

/** What a read on behalf of the principal found, or the 401 when the statement refused its credential. */
export function granted<T extends { refused?: CredentialState }>(context: QueryContext, read: T): Omit<T, 'refused'> {
  if (read.refused) throw credentialRefused(context.principal, read.refused, context.now);
  return read;
}
