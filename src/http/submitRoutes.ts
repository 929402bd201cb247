// POST /public/v1/submit/<activity>: one route per activity path, taken by the handler whose type
// and parameter shape the body has. The body is read as exactly the JSON its bytes say, the stamp
// verified over those bytes, then the engine creates the activity; each submission is timed,
// counted by outcome and logged with its activity.
import type { FastifyInstance } from 'fastify';
import type { ActivityEngine } from '../activities/lifecycle/engine.ts';
import type { ActivityHandler } from '../activities/handler.ts';
import { parseBody } from '../wire/jsonDocument.ts';
import { parseStamp } from '../auth/parseStamp.ts';
import { SignetError } from '../errors.ts';
import { rawBody } from './rawBody.ts';
import type { ActivityOutcome, Metrics } from './metrics.ts';
import { stampHeaderOf, type StampChecker } from './stampChecker.ts';

export function registerSubmitRoutes(
  app: FastifyInstance,
  engine: ActivityEngine,
  stamps: StampChecker,
  handlers: readonly ActivityHandler[],
  metrics: Metrics,
) {
  const byPath = new Map<string, ActivityHandler[]>();
  for (const handler of handlers) byPath.set(handler.path, [...(byPath.get(handler.path) ?? []), handler]);
  for (const [path, handlersOfPath] of byPath) {
    const attested = handlersOfPath.some((handler) => handler.acceptsAttestedStamp === true);
    app.post(`/public/v1/submit/${path}`, async (request, reply) => {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      // Counted under the handler that took the body, or the path's first before one is known.
      let activityType = handlersOfPath[0]!.activityType;
      let outcome;
      try {
        const body = rawBody(request);
        const document = parseBody(body);
        const stamp = parseStamp(request.headers, { attested });
        const { envelope, handler } = engine.envelope(handlersOfPath, document);
        activityType = handler.activityType;
        outcome = await stamps.checked(
          body,
          stamp,
          envelope.organizationId,
          (principal) => engine.submit(handler, { body, document, envelope, principal, stampHeader: stampHeaderOf(request.headers) }),
          handler.fromSubOrganization ? { fromSubOrganization: true } : {},
        );
      } catch (error) {
        const failure: ActivityOutcome = error instanceof SignetError && error.status < 500 ? 'refused' : 'failed';
        metrics.activity(activityType, failure, seconds());
        throw error;
      }
      const latency = seconds();
      metrics.activity(activityType, outcome.created ? 'created' : 'resubmitted', latency);
      request.log.info(
        {
          activityId: outcome.activityId,
          activityType,
          organizationId: outcome.organizationId,
          created: outcome.created,
          latencyMs: Math.round(latency * 1000 * 10) / 10,
        },
        outcome.created ? 'activity created' : 'activity resubmitted',
      );
      // A Buffer, encoded once: a string would be measured for Content-Length, then encoded again to be sent.
      return reply.status(200).type('application/json; charset=utf-8').send(Buffer.from(outcome.json));
    });
  }
}
