// Cross-origin access for browser apps (SIGNET_CORS_ORIGINS): the stamped public API and the
// /.well-known documents answer preflights and name the allowed origins; no other route ever does.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { permissionDenied } from '../errors.ts';

/**
 * Every request header the ecosystem's browser libraries send (stamps of each kind, their version,
 * a read-only session) and the request id a client may pass. Browsers compare names case-insensitively.
 */
export const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'X-Stamp',
  'X-Stamp-WebAuthn',
  'X-Stamp-Attested',
  'X-Client-Version',
  'X-Session',
  'X-Request-Id',
] as const;

/** Response headers a page's script may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After';

/** How long a browser may reuse a preflight's answer; 7200 s is Chromium's ceiling. */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** The routes a browser app may call, with the methods each answers. */
function scopeOf(request: FastifyRequest): string | undefined {
  if (request.url.startsWith('/public/v1/')) return 'POST, OPTIONS';
  if (request.url.startsWith('/.well-known/')) return 'GET, OPTIONS';
  return undefined;
}

/**
 * Registered before the failure throttle, so a preflight (which carries no stamp) is answered before
 * the throttle or the stamp check can see it, and every later answer of the route, errors and 429s
 * included, names the origin, so the page's script can read why it was refused.
 *
 * @param origins exact origins (scheme, host, port), or ['*'] for any; [] sends no CORS header.
 */
export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  const any = origins.includes('*');
  const allowed = new Set(origins);

  app.addHook('onRequest', (request, reply, done) => {
    const methods = scopeOf(request);
    if (methods === undefined) return done();
    const origin = request.headers.origin;
    const permitted = origin !== undefined && (any || allowed.has(origin));
    // The answer differs by Origin once any origin is allowed: a shared cache must keep them apart.
    if (origins.length > 0) reply.header('vary', 'Origin');
    if (permitted) {
      reply.header('access-control-allow-origin', any ? '*' : origin);
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    }

    const preflight = request.method === 'OPTIONS' && origin !== undefined && request.headers['access-control-request-method'] !== undefined;
    if (!preflight) return done();
    if (!permitted) {
      // A 403 that says which setting to change, rather than a silent 204: the browser blocks the call
      // either way, and this is what a developer sees in the network panel.
      const message =
        origins.length === 0
          ? 'cross-origin requests are not enabled on this server; the operator allows a browser app by listing its origin in SIGNET_CORS_ORIGINS'
          : `cross-origin requests from ${origin.slice(0, 200)} are not allowed; the operator allows a browser app by adding its origin to SIGNET_CORS_ORIGINS`;
      return done(permissionDenied('ORIGIN_NOT_ALLOWED', message));
    }
    reply.header('access-control-allow-methods', methods);
    reply.header('access-control-allow-headers', CORS_ALLOWED_HEADERS.join(', '));
    reply.header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
    // Answered here: the hook ends the request without calling done().
    reply.code(204).send();
  });
}
