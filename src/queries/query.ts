// Stamped, read-only queries (POST /public/v1/query/<name>): the body is parsed and the stamp
// verified over its raw bytes exactly as for activities, the credential must belong to the body's
// organizationId, and nothing is written. Each query is one file, like the activity handlers.
import type { z } from 'zod';
import { parseBody } from '../activities/engine.ts';
import { schemaError } from '../activities/violations.ts';
import { authenticate } from '../auth/authenticate.ts';
import { parseStamp } from '../auth/parseStamp.ts';
import type { Config } from '../config.ts';
import type { Database } from '../store/db.ts';

export interface QueryHandler<Schema extends z.ZodType<{ organizationId: string }> = z.ZodType<{ organizationId: string }>> {
  /** Last segment of POST /public/v1/query/<path>. */
  path: string;
  /** The whole body (strict), organizationId included. */
  request: Schema;
  /** A valid request body, shown in the OpenAPI document (a test checks it validates). */
  example: z.input<Schema>;
  run(db: Database, request: z.output<Schema>): Promise<object>;
}

export async function runQuery(
  deps: { db: Database; config: Config; now?: () => Date },
  handler: QueryHandler,
  submission: { body: Buffer; headers: Record<string, string | string[] | undefined> },
): Promise<object> {
  const document = parseBody(submission.body);
  const stamp = parseStamp(submission.headers);
  const parsed = handler.request.safeParse(document, { reportInput: true });
  if (!parsed.success) throw schemaError(parsed.error, '', 'invalid query');
  await authenticate(deps.db, submission.body, stamp, parsed.data.organizationId, {
    origins: deps.config.webauthnOrigins,
    rpId: deps.config.webauthnRpId,
    now: deps.now?.() ?? new Date(),
  });
  return handler.run(deps.db, parsed.data);
}
