// POST /public/v1/submit/<activity>: one route per registered handler, all through the engine.
import type { FastifyInstance } from 'fastify';
import type { ActivityEngine } from '../activities/engine.ts';
import type { ActivityHandler } from '../activities/handler.ts';
import { rawBody } from './app.ts';

export function registerSubmitRoutes(app: FastifyInstance, engine: ActivityEngine, handlers: readonly ActivityHandler[]) {
  for (const handler of handlers) {
    app.post(`/public/v1/submit/${handler.path}`, async (request, reply) => {
      const outcome = await engine.submit(handler, { body: rawBody(request), headers: request.headers });
      request.log.info(
        { activityId: outcome.activityId, activityType: handler.activityType, created: outcome.created },
        outcome.created ? 'activity created' : 'activity resubmitted',
      );
      return reply.status(200).send(outcome.response);
    });
  }
}
