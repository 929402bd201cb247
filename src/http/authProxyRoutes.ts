// The auth proxy's routes (POST /v1/otp_init_v2, /v1/signup_v2, …: what @turnkey/core calls at its
// authProxyUrl), each naming its configuration in X-Auth-Proxy-Config-ID, served by src/authProxy/.
// Their CORS is their configuration's own: a page of an allowed origin may call them, and is answered
// with its origin; a page of another origin is refused with a 403 and no CORS header. A preflight
// carries no configuration id, so it is answered for an origin some configuration allows. No other
// route's CORS changes (cors.ts keeps SIGNET_CORS_ORIGINS for the public API).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AuthProxy, CONFIG_HEADER, type AuthProxyDependencies } from '../authProxy/authProxy.ts';
import { AUTH_PROXY_ROUTES } from '../authProxy/routes.ts';
import { permissionDenied } from '../errors.ts';

const PATHS = new Set(AUTH_PROXY_ROUTES.map(({ name }) => `/v1/${name}`));

const ALLOWED_HEADERS = ['Content-Type', CONFIG_HEADER, 'X-Captcha-Token', 'X-Request-Id'].join(', ');
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After';
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

export function registerAuthProxyRoutes(app: FastifyInstance, deps: AuthProxyDependencies): void {
  const proxy = new AuthProxy(deps);

  // Preflights: answered here, before any route, for an origin some configuration allows.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'OPTIONS' || !PATHS.has(request.url.split('?')[0]!)) return done();
    const origin = request.headers.origin;
    if (origin === undefined || request.headers['access-control-request-method'] === undefined) return done();
    proxy.anyConfigAllows(origin).then(
      (allowed) => {
        if (!allowed) return done(originRefused(origin));
        reply.header('vary', 'Origin');
        reply.header('access-control-allow-origin', origin);
        reply.header('access-control-allow-methods', 'POST, OPTIONS');
        reply.header('access-control-allow-headers', ALLOWED_HEADERS);
        reply.header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
        reply.code(204).send();
      },
      (error: unknown) => done(error as Error),
    );
  });

  for (const { name, serve } of AUTH_PROXY_ROUTES) {
    app.post(`/v1/${name}`, async (request, reply) => {
      const config = await proxy.config(request.headers[CONFIG_HEADER.toLowerCase()]);
      allowOrigin(request, reply, config.allowedOrigins);
      await proxy.countAddress(config, request.ip);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return serve(proxy, { config, body });
    });
  }
}

/**
 * A page's origin must be one the configuration allows; it is then named in the answer (and every
 * error after this point), so the page can read it. A request with no Origin is no page's.
 */
function allowOrigin(request: FastifyRequest, reply: FastifyReply, allowed: readonly string[]): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (!allowed.includes(origin)) throw originRefused(origin);
  reply.header('vary', 'Origin');
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSED_HEADERS);
}

function originRefused(origin: string) {
  return permissionDenied(
    'AUTH_PROXY_ORIGIN_NOT_ALLOWED',
    `the auth proxy configuration does not allow pages of ${origin.slice(0, 200)}; the operator adds the origin to the configuration (signet authproxy create --origin)`,
  );
}
