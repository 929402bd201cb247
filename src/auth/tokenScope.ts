// Where a verification token may be used: in the organization it was issued in and, a parent's token,
// in that organization's sub-organizations (the ecosystem's servers verify a code in the app's
// organization, then act in the user's own). The one place that says so, for every use of a token.
import type { Queryable } from '../store/db.ts';
import { findOrganizationPlace } from '../store/organizations.ts';

/** Whether a token issued in `issuedIn` may be used in `organizationId`. A sub-organization's parent never changes. */
export async function tokenReaches(db: Queryable, issuedIn: string, organizationId: string): Promise<boolean> {
  const issued = issuedIn.toLowerCase();
  const wanted = organizationId.toLowerCase();
  return issued === wanted || (await findOrganizationPlace(db, wanted))?.parentId === issued;
}
