// POST /public/v1/query/<query>: one route per registered query, all through runQuery.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { QueryHandler } from '../queries/query.ts';
import { runQuery } from '../queries/query.ts';
import type { Database } from '../store/db.ts';
import { rawBody } from './app.ts';

export function registerQueryRoutes(app: FastifyInstance, deps: { db: Database; config: Config }, queries: readonly QueryHandler[]) {
  for (const query of queries) {
    app.post(`/public/v1/query/${query.path}`, async (request) =>
      runQuery(deps, query, { body: rawBody(request), headers: request.headers }),
    );
  }
}
