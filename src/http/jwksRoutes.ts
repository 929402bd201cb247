// The well-known documents of the service's public keys, fetched without a stamp: the JWKS of
// verify_otp's tokens, so any JWT library can check one, and signet-keys.json, the hex keys the
// ecosystem's verifiers take as their override argument.
import type { FastifyInstance } from 'fastify';
import type { ServiceKeys } from '../activities/lifecycle/serviceKeys.ts';
import { publicJwks, VERIFICATION_TOKEN_KEY, type PublicJwk } from '../otp/verificationToken.ts';

// Keys change only when the first one is created, so a short in-process cache spares the store;
// an empty set is never cached, so the key a fresh token names is served at once.
const CACHE_MS = 60_000;

export function registerJwksRoutes(app: FastifyInstance, serviceKeys: ServiceKeys) {
  let cached: { keys: PublicJwk[]; until: number } | undefined;

  app.get('/.well-known/jwks.json', async (_request, reply) => {
    const now = Date.now();
    if (!cached || cached.until <= now) {
      const keys = publicJwks(await serviceKeys.listed(VERIFICATION_TOKEN_KEY));
      cached = keys.length > 0 ? { keys, until: now + CACHE_MS } : undefined;
      if (!cached) return reply.header('cache-control', 'no-store').send({ keys: [] });
    }
    return reply.header('cache-control', 'public, max-age=300').send({ keys: cached.keys });
  });

  // Each key is created on first use; this document creates the missing ones, so what it says is
  // what will sign, from the first request on, in every process sharing the store.
  app.get('/.well-known/signet-keys.json', async (_request, reply) => {
    return reply.header('cache-control', 'public, max-age=300').send(await serviceKeys.published());
  });
}
