// Path parameters and query string values reach SQL as text, and PostgreSQL's text cannot hold NUL
// or an unpaired surrogate. So, as for JSON bodies, a URL that carries one, or a percent-encoding
// that is not UTF-8, is a 400 naming the parameter before any route runs, whatever the route.
import type { FastifyInstance } from 'fastify';
import { unstorable } from '../wire/jsonDocument.ts';
import { invalidField, type SignetError } from '../errors.ts';

const NOT_STORABLE = 'contains a NUL character or an unpaired UTF-16 surrogate; remove it';
const NOT_UTF8 = 'is not valid percent-encoded UTF-8';

/** The 400 for a path whose percent-encoding the router could not decode (it names no parameter). */
export const undecodablePath = (): SignetError => invalidField('(path)', `${NOT_UTF8}; encode each character as UTF-8 bytes, %XX each`, 'MALFORMED_REQUEST');

function decoded(component: string): string | undefined {
  try {
    return decodeURIComponent(component.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/** The first path parameter or query string name or value PostgreSQL could not hold, as a 400. */
export function urlParameterError(params: unknown, url: string): SignetError | undefined {
  for (const [name, value] of Object.entries((params ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string' && unstorable(value)) return invalidField(name, NOT_STORABLE);
  }
  const start = url.indexOf('?');
  if (start < 0) return undefined;
  for (const pair of url.slice(start + 1).split('&')) {
    const equals = pair.indexOf('=');
    const name = decoded(equals < 0 ? pair : pair.slice(0, equals));
    if (name === undefined || unstorable(name)) return invalidField('(query)', `a parameter name ${name === undefined ? NOT_UTF8 : NOT_STORABLE}`);
    const value = equals < 0 ? '' : decoded(pair.slice(equals + 1));
    if (value === undefined) return invalidField(name, NOT_UTF8);
    if (unstorable(value)) return invalidField(name, NOT_STORABLE);
  }
  return undefined;
}

export function registerUrlParameterCheck(app: FastifyInstance): void {
  // A callback hook, as every hook each request passes through: an async one costs a promise and a microtask.
  app.addHook('onRequest', (request, _reply, done) => {
    const error = urlParameterError(request.params, request.url);
    if (error) return done(error);
    done();
  });
}
