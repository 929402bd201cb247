// GET /openapi.json and GET /docs, built once at start from the registered handlers and queries.
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ActivityHandler } from '../activities/handler.ts';
import type { QueryHandler } from '../queries/query.ts';
import { buildOpenApi, renderDocs } from './openapi.ts';

const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function registerOpenApiRoutes(app: FastifyInstance, handlers: readonly ActivityHandler[], queries: readonly QueryHandler[]) {
  const document = buildOpenApi(handlers, queries, version);
  const page = renderDocs(document);
  app.get('/openapi.json', async () => document);
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
}
