// Liveness (/healthz: the process answers) and readiness (/readyz: the database answers).
import type { FastifyInstance } from 'fastify';
import type { Database } from '../store/db.ts';

const READY_TIMEOUT_MS = 2000;

export function registerHealthRoutes(app: FastifyInstance, db: Database) {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        db.query('SELECT 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('database did not answer in time')), READY_TIMEOUT_MS);
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
