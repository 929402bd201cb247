// What the request log carries and what it never may: a request id on every line (taken from a
// load balancer's X-Request-Id when well-formed, echoed in the answer), and no credential.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

// Ids a load balancer or proxy makes (UUIDs, hex, base64, "Root=1-…") fit; anything else — too
// long, control characters, several values — is replaced, so a client cannot forge log lines.
const WELL_FORMED_ID = /^[A-Za-z0-9._~:=+/-]{1,128}$/;

/** The request's id: the caller's X-Request-Id when well-formed, else a new UUID (unique across processes). */
export function requestId(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && WELL_FORMED_ID.test(given) ? given : randomUUID();
}

// Request headers are not logged (Fastify's serializer leaves them out); should a line ever carry
// them or a body, these paths are blanked: stamps, read-only sessions, the admin token, cookies.
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-stamp"]',
  'req.headers["x-stamp-webauthn"]',
  'req.headers["x-session"]',
  'req.body',
  'headers.authorization',
  'headers.cookie',
  'headers["x-stamp"]',
  'headers["x-stamp-webauthn"]',
  'headers["x-session"]',
  'body',
];

/** The app's logger options: the caller's (level, stream), with redaction added. */
export function loggerOptions(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const given = typeof logger === 'object' ? logger : {};
  return { ...given, redact: { paths: REDACTED, censor: '[redacted]' } };
}

/** Sends the request id back, so a client or the load balancer can quote it. */
export function registerRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}

/**
 * Fastify's request lines, at debug: at info an activity has its one line (submitRoutes.ts), and a
 * busy server is not slowed by two more per request. Errors keep their levels.
 */
export class DebugRequestLines extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
