// What the HTTP app is made of, given by the server that starts it (a file of its own, so the route
// files that take it import no part of the app that registers them). The server composes the store
// and the delivery worker; the app reaches them only through what it is given here.
import type { FastifyServerOptions } from 'fastify';
import type { ActivityPipeline } from '../activities/lifecycle/pipeline.ts';
import type { ActivityHandler } from '../activities/handler.ts';
import type { CredentialCache } from '../auth/credentialCache.ts';
import type { Config } from '../config.ts';
import type { KeyRing } from '../keys/custody/keyRing.ts';
import type { QueryContext } from '../queries/query.ts';
import type { Clock } from '../wire/clock.ts';
import type { Metrics } from './metrics.ts';

export interface AppDependencies {
  config: Config;
  /** The store, handed to the layers that read it (queries, the stamp check, the admin routes). */
  db: QueryContext['db'];
  /** Asks the store one question, for readiness: fails when the store cannot answer. */
  ping: () => Promise<unknown>;
  pipeline: ActivityPipeline;
  /** Credentials known from earlier requests (checked again by every statement). */
  credentials: CredentialCache;
  handlers: readonly ActivityHandler[];
  adminToken: string;
  metrics: Metrics;
  /** The time stamps, credentials and failure windows are judged at. */
  clock: Clock;
  logger?: FastifyServerOptions['logger'];
  /** The key-encryption keys of wallet key material (the admin API's rewrap re-seals under the one that seals). */
  kek: KeyRing;
  /** Wakes the delivery worker after the admin API queued a message (a webhook's test event). */
  onQueued?: () => void;
}
