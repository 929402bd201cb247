// An answer given before the request was all received (a 413 for a body over the limit, a 431 for
// headers over the limit) ends the connection. Node closes such a socket as soon as the answer is written; bytes of the body that
// then arrive, or were still unread, make the kernel reset the connection, and a reset can destroy the
// answer before the client reads it (the client sees EPIPE or ECONNRESET instead of the 413). So
// such a connection is half-closed after the answer instead, and what the client still sends is read
// and discarded, within a bound in bytes and time, before the socket is closed.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How much of an unread body a closing connection still reads and discards. */
export const LINGER_LIMITS = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 } as const;

const CHECK_EVERY_MS = 100;

type ClosableSocket = Socket & { destroySoon(): void };

const lingering = new WeakSet<Socket>();

/**
 * Ends the connection like Node's `destroySoon` (the answer first, then FIN), but leaves it open for
 * reading until the client closes its side or the bound is reached. The HTTP parser keeps reading the
 * rest of the body, which Node discards because no one reads the request any more.
 */
export function lingeringClose(socket: Socket): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  socket.end();
  const startBytes = socket.bytesRead;
  const deadline = Date.now() + LINGER_LIMITS.maxMs;
  const check = setInterval(() => {
    if (socket.bytesRead - startBytes > LINGER_LIMITS.maxBytes || Date.now() >= deadline) socket.destroy();
  }, CHECK_EVERY_MS);
  socket.once('close', () => clearInterval(check));
  socket.resume();
}

/** Answers sent before the request's body was all received close their connection without a reset. */
export function registerLingeringClose(app: FastifyInstance): void {
  app.addHook('onSend', (request, _reply, payload, done) => {
    // Node ends a `Connection: close` answer with socket.destroySoon(); until then the socket is the
    // request's, and the answer ends it only if the body is still arriving.
    if (!request.raw.complete) (request.raw.socket as ClosableSocket).destroySoon = () => lingeringClose(request.raw.socket);
    done(null, payload);
  });
}
