// Described fields of the answers, as every schema of the OpenAPI document writes them: the
// description is what the document shows of the field.
import { z } from 'zod';

/** A described UUID field. */
export const uuid = (description: string) => z.uuid().describe(description);
/** A described time field (RFC 3339, UTC). */
export const timestamp = (description: string) => z.iso.datetime().describe(`${description} (RFC 3339, UTC)`);
/** A described time field that may be null. */
export const nullableTimestamp = (description: string) => z.iso.datetime().nullable().describe(`${description} (RFC 3339, UTC), or null`);
