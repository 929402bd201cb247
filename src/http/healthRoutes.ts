// Liveness (/healthz: the process answers) and readiness (/readyz: the database answers within
// SIGNET_DATABASE_TIMEOUT_MS).
import type { FastifyInstance } from 'fastify';

/** `ping` asks the store one question; it fails when the store cannot answer. */
export function registerHealthRoutes(app: FastifyInstance, ping: () => Promise<unknown>, timeoutMs: number) {
  app.get('/healthz', async () => ({ status: 'ok' }));

  // Each check is a fresh query: the first one the database answers after an outage says 200.
  app.get('/readyz', async (request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      // The store bounds each of its waits; a wait for a pooled connection followed by a query
      // could add up to more, and a health check must answer within one bound.
      await Promise.race([
        ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('database did not answer in time')), timeoutMs);
        }),
      ]);
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.status(503).send({ status: 'unavailable' });
    } finally {
      clearTimeout(timer);
    }
  });
}
