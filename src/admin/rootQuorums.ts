// The root quorum for operators: show it, and replace it without the quorum's approval. That is the
// way back for an organization whose root users lost their keys: update_root_quorum needs the root
// quorum's own approval, so without it nobody could ever change the quorum again.
import { invalidField } from '../errors.ts';
import type { Database, Queryable } from '../store/db.ts';
import { findRootQuorum, replaceRootQuorum, type RootQuorum } from '../store/rootQuorums.ts';
import { unknownOrganization } from './organizations.ts';

/** The organization's root quorum as get_organization_configs shows it ({threshold, userIds}, oldest user first); 404 for an unknown organization. */
export async function getRootQuorum(db: Queryable, organizationId: string): Promise<RootQuorum> {
  const quorum = await findRootQuorum(db, organizationId);
  if (!quorum) throw unknownOrganization(organizationId);
  return quorum;
}

/**
 * Replaces the organization's root quorum: `userIds` (checked by the caller: 1 to 100 ids, none
 * twice, 1 <= threshold <= their number) must each be a user of the organization not removed, else a
 * 400 naming `userIds[i]` and nothing is written; 404 for an unknown organization. Every process
 * decides the organization's activities with the new quorum from the next request on.
 */
export async function setRootQuorum(db: Database, organizationId: string, input: RootQuorum): Promise<RootQuorum> {
  const userIds = input.userIds.map((id) => id.toLowerCase());
  const outcome = await replaceRootQuorum(db, organizationId, { threshold: input.threshold, userIds });
  if ('replaced' in outcome) return outcome.replaced;
  if ('noOrganization' in outcome) throw unknownOrganization(organizationId);
  const userId = userIds[outcome.notAUser]!;
  throw invalidField(
    `userIds[${outcome.notAUser}]`,
    `no user ${userId} in organization ${organizationId} (or it was removed); a root quorum is made of the organization's users ` +
      `(\`signet user list --org ${organizationId}\` lists them)`,
  );
}
