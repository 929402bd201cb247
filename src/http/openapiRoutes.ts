// GET /openapi.json (built from the registered handlers and queries at its first request, then kept
// as text), GET /docs, the API reference page rendered from it by Swagger UI (the swagger-ui-dist
// package, served by Signet itself: the page makes no request outside this origin), its assets, and
// GET / → /docs. Nothing of it is built or read at start; the package's files are streamed from disk
// when asked for, not kept in memory.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ActivityHandler } from '../activities/handler.ts';
import { notFound } from '../errors.ts';
import type { QueryHandler } from '../queries/query.ts';
import { buildOpenApi } from './openapi.ts';

const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Where the installed swagger-ui-dist is, found when first needed. */
let swaggerUiFolder: { folder: string; version: string } | undefined;
function swaggerUi(): { folder: string; version: string } {
  if (!swaggerUiFolder) {
    const manifest = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
    const { version: packageVersion } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
    swaggerUiFolder = { folder: path.dirname(manifest), version: packageVersion };
  }
  return swaggerUiFolder;
}

// Options of Swagger UI (https://swagger.io/docs/open-source-tools/swagger-ui/usage/configuration/):
// no "try it out" (every request needs a stamp made over its body), and no validator badge, the one
// thing that would call another site.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelRendering: 'model',
  defaultModelExpandDepth: 3,
  defaultModelsExpandDepth: 0,
  showExtensions: true,
  showCommonExtensions: true,
  supportedSubmitMethods: [],
  validatorUrl: null,
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Signet API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<style>body { margin: 0 } .swagger-ui .topbar { display: none }</style>
</head>
<body>
<noscript>The reference needs JavaScript; the document itself is at <a href="openapi.json">openapi.json</a>.</noscript>
<div id="reference"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/signet-docs.js"></script>
</body>
</html>
`;

// Nothing the page loads may come from elsewhere, whatever a description links to.
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ASSETS: Record<string, { type: string; file?: string; text?: string }> = {
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'signet-docs.js': { type: 'text/javascript; charset=utf-8', text: INITIALIZER },
};

export function registerOpenApiRoutes(app: FastifyInstance, handlers: readonly ActivityHandler[], queries: readonly QueryHandler[]) {
  let document: string | undefined;
  app.get('/openapi.json', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send((document ??= JSON.stringify(buildOpenApi(handlers, queries, version)))),
  );

  app.get('/', async (_request, reply) => reply.redirect('docs', 302));

  app.get('/docs', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', CONTENT_SECURITY_POLICY).header('cache-control', 'no-cache').send(PAGE),
  );

  app.get('/docs/assets/:file', async (request, reply) => {
    const name = (request.params as { file: string }).file;
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name]! : undefined;
    if (!asset) throw notFound('ROUTE_NOT_FOUND', `no file ${name.slice(0, 100)} in /docs/assets; the reference page is at /docs`);
    // Revalidated by version: a new Signet or swagger-ui-dist is a new tag.
    const etag = `"${version}-${swaggerUi().version}"`;
    reply.type(asset.type).header('cache-control', 'public, max-age=86400').header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    if (asset.text !== undefined) return reply.send(asset.text);
    return reply.send(fs.createReadStream(path.join(swaggerUi().folder, asset.file!)));
  });
}
