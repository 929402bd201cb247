// get_app_proofs (an activity's App Proofs) and get_app_proof_keys (the keys that sign them).
import { z } from 'zod';
import { appProofKeys } from '../activities/appProofs.ts';
import { notFound } from '../errors.ts';
import { findActivity } from '../store/activities.ts';
import type { Queryable } from '../store/db.ts';
import type { QueryHandler } from './query.ts';

const organizationId = z.uuid({ message: 'must be the UUID of your organization' });

export const getAppProofs: QueryHandler = {
  path: 'get_app_proofs',
  request: z.strictObject({ organizationId, activityId: z.uuid({ message: 'must be an activity id (a UUID)' }) }),
  async run(db: Queryable, query: { organizationId: string; activityId: string }) {
    const record = await findActivity(db, { organizationId: query.organizationId, id: query.activityId });
    if (!record) throw notFound(`no activity ${query.activityId} in organization ${query.organizationId}`);
    return { appProofs: record.appProofs ?? [] };
  },
};

export const getAppProofKeys: QueryHandler = {
  path: 'get_app_proof_keys',
  request: z.strictObject({ organizationId }),
  async run(db: Queryable) {
    return { appProofKeys: await appProofKeys(db) };
  },
};
