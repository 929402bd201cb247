// Composes a running Signet: store (migrated), engine, metrics, outbox worker, housekeeping and HTTP
// app, and takes them down in order (stop accepting, finish in-flight requests, flush the worker,
// stop the housekeeping, close the store).
import path from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { ActivityEngine } from './activities/engine.ts';
import type { ActivityHandler } from './activities/handler.ts';
import { activityHandlers } from './activities/registry.ts';
import { ServiceKeys } from './activities/serviceKeys.ts';
import { bootstrapDevelopment, type DevCredentials } from './admin/devBootstrap.ts';
import { loadAdminToken, loadDeploymentSecret } from './admin/localSecrets.ts';
import { CredentialCache } from './auth/credentialCache.ts';
import type { Config } from './config.ts';
import { createEmailTransport } from './delivery/email/transport.ts';
import { Housekeeping } from './delivery/housekeeping.ts';
import { OutboxWorker } from './delivery/outboxWorker.ts';
import { createSmsProvider } from './delivery/sms/createSmsProvider.ts';
import { openPkcs11Kek } from './hsm/pkcs11Kek.ts';
import { buildApp } from './http/app.ts';
import { connectionBounds, limitConnections, openFileLimit, type ConnectionBounds } from './http/connectionLimits.ts';
import { Metrics } from './http/metrics.ts';
import { deploymentSecretKek } from './keys/custody/deploymentSecretKek.ts';
import type { KeyEncryptionKey } from './keys/custody/keyEncryptionKey.ts';
import { openDatabase, type Database } from './store/db.ts';
import { ping } from './store/health.ts';
import { migrate } from './store/migrate.ts';
import { ATTEMPT_OUTCOMES, CHANNELS, outboxDepth } from './store/outbox.ts';
import { systemClock, type Clock } from './wire/clock.ts';

export interface RunningServer {
  app: FastifyInstance;
  db: Database;
  worker: OutboxWorker;
  /** http://host:port the server listens on. */
  url: string;
  adminToken: string;
  /** The key-encryption key of wallet key material: in the HSM of SIGNET_PKCS11_*, else derived from the deployment secret. */
  kek: KeyEncryptionKey;
  /** How many connections it holds open at most, read from the open-file limit at start. */
  connections: ConnectionBounds;
  /** Written on the first start of an empty embedded store. */
  devCredentials?: DevCredentials;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: FastifyServerOptions['logger'];
  /** An already opened, migrated store (tests); otherwise opened from the config. */
  db?: Database;
  /** Activity handlers to serve; all registered ones by default. */
  handlers?: readonly ActivityHandler[];
  /** The time the service decides by (expiries, freshness, time windows); the system's by default. */
  clock?: Clock;
}

/** Opens PostgreSQL, or the embedded store for this process only; `holder` names it to a refused second one. */
export function openConfiguredDatabase(config: Config, holder: string): Promise<Database> {
  return config.databaseUrl
    ? openDatabase({ url: config.databaseUrl, maxConnections: config.database.poolSize, timeoutMs: config.database.timeoutMs })
    : openDatabase({ dataDir: path.join(config.dataDir, 'pglite'), holder });
}

/** Why the server cannot listen, in one line naming the address and the setting that chooses it. */
function listenRefused(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${host} port ${port}`;
  if (code === 'EADDRINUSE') return new Error(`cannot listen on ${where}: another process listens there; stop it, or choose another port with SIGNET_PORT (signet serve --port N)`);
  if (code === 'EACCES') return new Error(`cannot listen on ${where}: this user may not use that port; choose one above 1023 with SIGNET_PORT (signet serve --port N)`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new Error(`cannot listen on ${host}: the name does not resolve to an address; choose another with SIGNET_HOST (signet serve --host ADDRESS)`);
  if (code === 'EADDRNOTAVAIL') return new Error(`cannot listen on ${where}: no network interface of this machine has the address ${host}; choose another with SIGNET_HOST (signet serve --host ADDRESS)`);
  return error;
}

function listeningUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const ownsDb = options.db === undefined;
  const db = options.db ?? (await openConfiguredDatabase(config, `signet serve on ${listeningUrl(config.host, config.port)}`));
  let hsmKek: Awaited<ReturnType<typeof openPkcs11Kek>> | undefined;
  try {
    if (ownsDb) await migrate(db);
    const secret = loadDeploymentSecret(config);
    const adminToken = loadAdminToken(config);
    // Opened and checked by a wrap and unwrap before the server listens: a problem stops the start.
    hsmKek = config.pkcs11 ? await openPkcs11Kek(config.pkcs11) : undefined;
    const kek: KeyEncryptionKey = hsmKek ?? deploymentSecretKek(secret);

    let worker: OutboxWorker | undefined;
    const handlers = options.handlers ?? activityHandlers;
    const clock = options.clock ?? systemClock;
    const engine = new ActivityEngine({
      db,
      config,
      secret,
      keys: new ServiceKeys(db, secret),
      handlers,
      now: clock,
      onQueued: () => worker?.wake(),
      log: { warn: (object, message) => app.log.warn(object, message) },
    });
    const outbox = { depth: () => outboxDepth(db), channels: CHANNELS, outcomes: ATTEMPT_OUTCOMES };
    const metrics = new Metrics(outbox, handlers.map((handler) => handler.activityType), (error) =>
      app.log.warn({ err: error }, 'metrics: cannot read the outbox depth; reported as NaN'),
    );
    const app = buildApp({ config, db, ping: () => ping(db), engine, credentials: new CredentialCache(), handlers, adminToken, metrics, clock, logger: options.logger ?? false, onQueued: () => worker?.wake() });
    worker = new OutboxWorker({
      db,
      secret,
      email: createEmailTransport(config, app.log),
      sms: createSmsProvider(config, app.log),
      logger: app.log,
      pollMs: config.outboxPollMs,
      maxAttempts: config.outboxMaxAttempts,
      defaultFrom: config.emailFrom,
      logo: { allowHttp: config.allowHttpLogos, allowPrivate: config.logoAllowPrivate },
      webhookAllowInsecure: config.webhookAllowInsecure,
      onOutcome: (outcome) => metrics.delivery(outcome),
    });
    const started = worker;
    const housekeeping = new Housekeeping({
      db,
      logger: app.log,
      retentionDays: config.outboxRetentionDays,
      longestRateWindowSeconds: Math.max(...Object.values(config.otpRateLimits).map((limit) => limit.windowSeconds)),
    });

    const connections = connectionBounds(config, openFileLimit());
    limitConnections(app.server, connections, config, metrics, app.log);
    await app.listen({ host: config.host, port: config.port }).catch((error: unknown) => {
      throw listenRefused(error, config.host, config.port);
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = listeningUrl(config.host, port);
    if (config.outboxWorker) {
      started.start();
      housekeeping.start();
    }
    const devCredentials = ownsDb ? await bootstrapDevelopment(db, config, url) : undefined;

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        await app.close(); // stops accepting, lets in-flight requests finish
        await started.stop(); // finishes the sends under way, gives back the messages not begun
        await housekeeping.stop();
        await hsmKek?.close();
        if (ownsDb) await db.close();
      })());
    return { app, db, worker: started, url, adminToken, kek, connections, ...(devCredentials ? { devCredentials } : {}), close };
  } catch (error) {
    await hsmKek?.close();
    if (ownsDb) await db.close();
    throw error;
  }
}
