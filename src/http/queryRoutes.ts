// POST /public/v1/query/<query>: one route per registered query. The body is parsed and the stamp
// verified over its raw bytes exactly as for activities (or, without a stamp, a read-only session's
// X-Session token checked); the query reads on behalf of the principal.
import type { FastifyInstance } from 'fastify';
import type { ActivityPipeline } from '../activities/lifecycle/pipeline.ts';
import type { Clock } from '../wire/clock.ts';
import { parseBody } from '../wire/jsonDocument.ts';
import { schemaError } from '../wire/violations.ts';
import { parseStamp } from '../auth/parseStamp.ts';
import { readOnlySessionOf } from '../auth/authenticateReadOnlySession.ts';
import { queryContext, type QueryContext, type QueryHandler } from '../queries/query.ts';
import { rawBody } from './rawBody.ts';
import type { StampChecker } from './stampChecker.ts';

export function registerQueryRoutes(
  app: FastifyInstance,
  db: QueryContext['db'],
  pipeline: ActivityPipeline,
  stamps: StampChecker,
  queries: readonly QueryHandler[],
  clock: Clock,
) {
  for (const query of queries) {
    app.post(`/public/v1/query/${query.path}`, async (request, reply) => {
      const body = rawBody(request);
      const document = parseBody(body);
      // A read-only session (X-Session) reads when no stamp is sent; the stamp's absence is otherwise a 401.
      const readOnlySession = readOnlySessionOf(request.headers);
      const credential = readOnlySession === undefined ? parseStamp(request.headers) : { readOnlySession };
      const parsed = query.request.safeParse(document, { reportInput: true });
      if (!parsed.success) throw schemaError(parsed.error, '', 'invalid query');
      const answer = await stamps.checked(body, credential, parsed.data.organizationId, (principal) =>
        query.run(queryContext(db, principal, clock(), pipeline), parsed.data),
        query.fromSubOrganization ? { fromSubOrganization: true } : {},
      );
      return typeof answer === 'string' ? reply.type('application/json; charset=utf-8').send(Buffer.from(answer)) : answer;
    });
  }
}
