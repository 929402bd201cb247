// The Fastify application: keeps every JSON body as raw bytes (stamps are verified over them),
// bounds how long a client may take, maps every failure (the HTTP parser's included) to the error
// error shape of src/errors.ts, and mounts the route modules, metrics, request ids, CORS and the failure throttle.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import {
  internal,
  DatabaseUnavailable,
  malformedRequest,
  notFound,
  payloadTooLarge,
  type Reason,
  SignetError,
  unavailable,
  unsupportedMediaType,
} from '../errors.ts';
import { VERIFICATION_TOKEN_KEY } from '../otp/verificationToken.ts';
import { SERVICE_KEYS } from '../activities/lifecycle/serviceKeys.ts';
import { registerAdminRoutes } from './adminRoutes.ts';
import { registerAuthProxyRoutes } from './authProxyRoutes.ts';
import { AuthFailureThrottle, registerAuthFailureThrottle } from './authFailureThrottle.ts';
import { registerConsoleRoutes } from './consoleRoutes.ts';
import { registerCors } from './cors.ts';
import { registerHealthRoutes } from './healthRoutes.ts';
import { registerJwksRoutes } from './jwksRoutes.ts';
import { lingeringClose, registerLingeringClose } from './lingeringClose.ts';
import { registerMetrics } from './metrics.ts';
import { queryHandlers } from '../queries/registry.ts';
import { registerOpenApiRoutes } from './openapiRoutes.ts';
import { registerQueryRoutes } from './queryRoutes.ts';
import { DebugRequestLines, loggerOptions, REQUEST_ID_HEADER, registerRequestIds, requestId } from './requestLog.ts';
import { StampChecker } from './stampChecker.ts';
import { registerUrlParameterCheck, undecodablePath } from './urlParameters.ts';
import { registerSubmitRoutes } from './submitRoutes.ts';
import type { AppDependencies } from './dependencies.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;


function toSignetError(error: FastifyError & { code?: string }, contentType: string | undefined): SignetError | undefined {
  if (error instanceof SignetError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(BODY_LIMIT_BYTES);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(contentType?.slice(0, 100));
    case 'FST_ERR_BAD_URL':
      return undecodablePath();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return malformedRequest('request body is empty; send the activity as a JSON object');
  }
  if (error instanceof DatabaseUnavailable) {
    return error.timedOut ? unavailable('the database did not answer in time; nothing was stored, retry later') : unavailable();
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new SignetError('MALFORMED_REQUEST', error.message, { status: error.statusCode });
  }
  return undefined;
}

const registeredRoutes = new WeakMap<FastifyInstance, Array<{ method: string; url: string }>>();

/** Every route the app serves (HEAD aside), so a test can hold the OpenAPI document to it. */
export function routesOf(app: FastifyInstance): Array<{ method: string; url: string }> {
  return registeredRoutes.get(app) ?? [];
}

export function buildApp(deps: AppDependencies): FastifyInstance {
  const { config } = deps;
  const app = Fastify({
    logger: loggerOptions(deps.logger),
    logController: new DebugRequestLines(),
    genReqId: requestId,
    bodyLimit: BODY_LIMIT_BYTES,
    // Fastify's 100-character default would refuse a valid path value with a 414: a sender domain
    // may be 253 characters.
    routerOptions: { maxParamLength: 256 },
    // Stamps and fingerprints are over exact bytes; nothing may rewrite the body.
    onProtoPoisoning: 'error',
    // Requests that arrive while the server closes are refused by drainOnClose, in the error shape.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // A client has requestTimeoutMs for the whole request, headers and body (slow-body clients are cut
    // off with a 408), and an idle kept-alive connection is closed after keepAliveTimeoutMs.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      // Given here too: Node checks headersTimeout <= requestTimeout when it makes the server, before
      // Fastify sets requestTimeout, against Node's default of 300 s.
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      // Node enforces the two timeouts above at this interval (30 s by default): check often enough
      // that a slow client is cut off close to its deadline.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(config.requestTimeoutMs / 4))),
    },
    clientErrorHandler: answerClientError,
    // The router's own refusals (a path parameter that is not percent-encoded UTF-8) are answered
    // before any hook runs; they take the error shape and a request id too.
    frameworkErrors: (error, request, reply) => {
      const signetError = toSignetError(error, undefined) ?? internal();
      (reply as FastifyReply).header(REQUEST_ID_HEADER, request.id).status(signetError.status).send(signetError.toJSON());
    },
    // Only the proxies an operator names may say who the client is (X-Forwarded-For → request.ip).
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
  });

  const routes: Array<{ method: string; url: string }> = [];
  registeredRoutes.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });

  registerRequestIds(app);
  registerMetrics(app, deps.metrics, config.metricsHosts);
  registerCors(app, config.corsOrigins); // before the throttle: a preflight has no stamp to count
  registerUrlParameterCheck(app);
  const throttle = new AuthFailureThrottle(config.authFailureLimit, () => deps.clock().getTime());
  registerAuthFailureThrottle(app, throttle);
  drainOnClose(app);
  registerLingeringClose(app);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let signetError = toSignetError(error, request.headers['content-type']);
    if (!signetError) {
      request.log.error({ err: error }, 'request failed');
      signetError = internal();
    }
    if (signetError.stampFailure) {
      deps.metrics.stampFailure(signetError.stampFailure);
      // The reason is what an operator needs; the message is the client's to read.
      request.log.info({ stampFailure: signetError.stampFailure, statusCode: signetError.status }, 'stamp refused');
    }
    if (signetError.retryAfterSeconds !== undefined) reply.header('Retry-After', String(signetError.retryAfterSeconds));
    reply.status(signetError.status).send(signetError.toJSON());
  });

  app.setNotFoundHandler((request, reply) => {
    const error = notFound('ROUTE_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}; activities are at POST /public/v1/submit/<activity>, queries at POST /public/v1/query/<query>`);
    reply.status(404).send(error.toJSON());
  });

  registerHealthRoutes(app, deps.ping, deps.config.database.timeoutMs);
  registerJwksRoutes(app, deps.pipeline.keys);
  const stamps = new StampChecker({
    db: deps.db,
    config,
    credentials: deps.credentials,
    verificationTokenKeys: () => deps.pipeline.keys.verifiers(VERIFICATION_TOKEN_KEY),
    sessionKeys: () => deps.pipeline.keys.verifiers(SERVICE_KEYS.session.purpose),
    onAuthenticated: (credential) => throttle.succeeded(credential),
    now: deps.clock,
  });
  registerSubmitRoutes(app, deps.pipeline, stamps, deps.handlers, deps.metrics);
  registerQueryRoutes(app, deps.db, deps.pipeline, stamps, queryHandlers, deps.clock);
  registerOpenApiRoutes(app, deps.handlers, queryHandlers);
  registerConsoleRoutes(app);
  registerAdminRoutes(app, deps);
  registerAuthProxyRoutes(app, {
    db: deps.db,
    kek: deps.kek,
    pipeline: deps.pipeline,
    handlers: deps.handlers,
    principalOf: (body, stamp, organizationId) => stamps.principalOf(body, stamp, organizationId),
    clock: deps.clock,
  });
  return app;
}

const CLIENT_ERRORS: Record<string, { reason: Reason; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    reason: 'HEADERS_TOO_LARGE',
    message: 'request headers are larger than the limit of 16 KiB; send fewer or smaller headers',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    reason: 'REQUEST_TIMEOUT',
    message: 'the request was not received in time (SIGNET_REQUEST_TIMEOUT_MS); send the whole request at once',
  },
  ERR_HTTP_HEADERS_TIMEOUT: {
    reason: 'REQUEST_TIMEOUT',
    message: 'the request headers were not received in time (SIGNET_REQUEST_TIMEOUT_MS); send the whole request at once',
  },
};

/**
 * Answers what Node's HTTP parser refuses before any route sees it (oversized headers, a request not
 * received in time, malformed HTTP) in the error shape of every other answer, with a request id, and
 * says `Connection: close` because the connection is closed after it.
 */
function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[error.code ?? ''];
  const refusal = known ? new SignetError(known.reason, known.message) : malformedRequest('malformed HTTP request; send a valid HTTP/1.1 request');
  const { status } = refusal;
  const body = JSON.stringify(refusal.toJSON());
  const id = randomUUID();
  this.log.debug({ reqId: id, code: error.code, statusCode: status }, 'client error');
  // A response already under way on this connection cannot be followed by another one.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  // The answer to a HEAD is headers alone: a client reads any body after them as a broken next answer.
  // The method is known when the bytes the parser refused begin the request (a client's one write).
  const head = (error as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  if (socket.writable && !inFlight?.headersSent) {
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${id}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
  }
  // The client may still be sending what the parser refused (headers over the limit): closing with
  // those bytes unread would reset the connection, and the client could lose the answer.
  lingeringClose(socket);
}

/**
 * At close, Node stops accepting and drops idle keep-alive connections, but a connection whose
 * request is in flight would stay open after its answer for keepAliveTimeout (72 s in Fastify),
 * holding the shutdown up. Answers sent while closing say `Connection: close`, and a connection
 * that goes idle while closing is dropped at once. A request that arrives while closing is refused
 * with a 503 (SHUTTING_DOWN), for the client to send it elsewhere.
 */
function drainOnClose(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback hooks, as every hook each request passes through: an async one costs a promise and a microtask.
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) return done(unavailable('the server is shutting down; nothing was done, send the request again', 'SHUTTING_DOWN'));
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
}
