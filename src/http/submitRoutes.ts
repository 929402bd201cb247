// POST /public/v1/submit/<activity>: one route per registered handler, all through the engine;
// each submission is timed, counted by outcome and logged with its activity.
import type { FastifyInstance } from 'fastify';
import type { ActivityEngine } from '../activities/engine.ts';
import type { ActivityHandler } from '../activities/handler.ts';
import { SignetError } from '../errors.ts';
import { rawBody } from './app.ts';
import type { ActivityOutcome, Metrics } from './metrics.ts';

export function registerSubmitRoutes(
  app: FastifyInstance,
  engine: ActivityEngine,
  handlers: readonly ActivityHandler[],
  metrics: Metrics,
) {
  for (const handler of handlers) {
    app.post(`/public/v1/submit/${handler.path}`, async (request, reply) => {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      let outcome;
      try {
        outcome = await engine.submit(handler, { body: rawBody(request), headers: request.headers });
      } catch (error) {
        const failure: ActivityOutcome = error instanceof SignetError && error.status < 500 ? 'refused' : 'failed';
        metrics.activity(handler.activityType, failure, seconds());
        throw error;
      }
      const latency = seconds();
      metrics.activity(handler.activityType, outcome.created ? 'created' : 'resubmitted', latency);
      request.log.info(
        {
          activityId: outcome.activityId,
          activityType: handler.activityType,
          organizationId: outcome.response.activity.organizationId,
          created: outcome.created,
          latencyMs: Math.round(latency * 1000 * 10) / 10,
        },
        outcome.created ? 'activity created' : 'activity resubmitted',
      );
      return reply.status(200).send(outcome.response);
    });
  }
}
