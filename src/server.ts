// Composes a running Signet: store (migrated), activity pipeline, metrics, outbox worker, housekeeping and HTTP
// app, and takes them down in order (stop accepting, finish in-flight requests, flush the worker,
// stop the housekeeping, close the store).
import fs from 'node:fs';
import type https from 'node:https';
import path from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { ActivityPipeline } from './activities/lifecycle/pipeline.ts';
import { voteRoutes } from './activities/lifecycle/votes.ts';
import type { ActivityHandler } from './activities/handler.ts';
import { activityHandlers } from './activities/registry.ts';
import { ServiceKeys } from './activities/lifecycle/serviceKeys.ts';
import { bootstrapDevelopment, type DevCredentials } from './admin/devBootstrap.ts';
import { adminToken, adminTokenPath, deploymentSecret } from './admin/localSecrets.ts';
import { CredentialCache } from './auth/credentialCache.ts';
import { OidcVerifier } from './auth/oidc/verifyIdToken.ts';
import { ConfigError, type Config } from './config.ts';
import { createEmailTransport } from './delivery/email/transport.ts';
import { Housekeeping } from './delivery/housekeeping.ts';
import { OutboxWorker } from './delivery/outboxWorker.ts';
import { createSmsProvider } from './delivery/sms/createSmsProvider.ts';
import { openPkcs11Kek } from './hsm/pkcs11Kek.ts';
import { buildApp } from './http/app.ts';
import { connectionBounds, limitConnections, openFileLimit, type ConnectionBounds } from './http/connectionLimits.ts';
import { Metrics } from './http/metrics.ts';
import { deploymentSecretKek } from './keys/custody/deploymentSecretKek.ts';
import { keyRing, type KeyRing } from './keys/custody/keyRing.ts';
import { openDatabase, type Database } from './store/db.ts';
import { ping } from './store/health.ts';
import { migrate } from './store/migrate.ts';
import { ATTEMPT_OUTCOMES, CHANNELS, outboxDepth } from './store/outbox.ts';
import { SealedUnderAnotherSecret } from './store/signingKeys.ts';
import { storeProblem } from './store/startProblems.ts';
import { systemClock, type Clock } from './wire/clock.ts';

export interface RunningServer {
  app: FastifyInstance;
  db: Database;
  worker: OutboxWorker;
  /** http://host:port the server listens on. */
  url: string;
  adminToken: string;
  /**
   * The key-encryption keys of wallet key material: sealing under the HSM key of SIGNET_PKCS11_*, else
   * under the one derived from the deployment secret; opening under either.
   */
  kek: KeyRing;
  /** How many connections it holds open at most, read from the open-file limit at start. */
  connections: ConnectionBounds;
  /** Written on the first start of an empty embedded store. */
  devCredentials?: DevCredentials;
  /** SIGNET_DATA_DIR/otp-secret, when SIGNET_OTP_SECRET is not set: where the deployment secret is kept, and whether this start generated it. */
  secretFile?: { path: string; generated: boolean };
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
  /** The TLS agent the OIDC issuers' keys are fetched through (tests trust their provider's CA); Node's default (system CAs, NODE_EXTRA_CA_CERTS) otherwise. */
  oidcAgent?: https.Agent;
}

/**
 * Opens PostgreSQL, or the embedded store for this process only; `holder` names it to a refused
 * second one. A store that cannot be opened is a ConfigError naming the setting and the fix
 * (storeProblem).
 */
export async function openConfiguredDatabase(config: Config, holder: string): Promise<Database> {
  try {
    return await (config.databaseUrl
      ? openDatabase({ url: config.databaseUrl, maxConnections: config.database.poolSize, timeoutMs: config.database.timeoutMs })
      : openDatabase({ dataDir: path.join(config.dataDir, 'pglite'), holder }));
  } catch (error) {
    throw storeProblem(error, config);
  }
}

/**
 * What a failed start removes of what it made: the files it generated (the deployment secret, the
 * admin token), then the data folder when it was not there before and is empty now. The new
 * embedded store is removed as it closes (db.close({ discardNew })).
 */
function madeByStart(config: Config): { generated: string[]; remove(): void } {
  const folder = fs.existsSync(config.dataDir);
  const generated: string[] = [];
  return {
    generated,
    remove() {
      for (const file of generated) fs.rmSync(file, { force: true });
      if (folder) return;
      try {
        fs.rmdirSync(config.dataDir); // only when empty: nothing of another's is removed
      } catch {
        // holds something else, or is gone
      }
    },
  };
}

/**
 * The deployment secret opens the store's sealed signing keys (made on the first start where
 * missing, so a later start with another secret is refused here rather than by a 500 on every key
 * use); a ConfigError naming SIGNET_OTP_SECRET and the fix when it does not.
 */
async function checkDeploymentSecret(keys: ServiceKeys, config: Config, secretFile: RunningServer['secretFile']): Promise<void> {
  try {
    await keys.published();
  } catch (error) {
    if (!(error instanceof SealedUnderAnotherSecret)) throw error;
    const used = secretFile
      ? `SIGNET_OTP_SECRET is not set, so the secret is the one in ${secretFile.path}${secretFile.generated ? ', generated by this start (removed again)' : ''}`
      : 'the secret is SIGNET_OTP_SECRET';
    const store = config.databaseUrl ? 'the PostgreSQL database of SIGNET_DATABASE_URL' : `the embedded store in ${path.join(config.dataDir, 'pglite')}`;
    throw new ConfigError(
      `the deployment secret does not open the sealed keys of ${store} (signing key ${error.kid}): the store was made with another secret, and ${used}. ` +
        'Start with the SIGNET_OTP_SECRET the store was made with (every process sharing the store needs the same)' +
        (config.databaseUrl ? '' : `, or put back the otp-secret file of that data folder (signet backup keeps it with the store)`) +
        '; a new secret cannot open what the old one sealed',
      { cause: error },
    );
  }
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
  const made = madeByStart(config);
  let db: Database;
  try {
    db = options.db ?? (await openConfiguredDatabase(config, `signet serve on ${listeningUrl(config.host, config.port)}`));
  } catch (error) {
    made.remove();
    throw error;
  }
  let hsmKek: Awaited<ReturnType<typeof openPkcs11Kek>> | undefined;
  try {
    if (ownsDb) await migrate(db);
    const deployment = deploymentSecret(config);
    const secret = deployment.key;
    const secretFile = deployment.file ? { path: deployment.file, generated: deployment.generated } : undefined;
    if (deployment.file && deployment.generated) made.generated.push(deployment.file);
    const keys = new ServiceKeys(db, secret);
    if (ownsDb) await checkDeploymentSecret(keys, config, secretFile);
    const token = adminToken(config);
    if (token.generated) made.generated.push(adminTokenPath(config));
    // Opened and checked by a wrap and unwrap before the server listens: a problem stops the start.
    hsmKek = config.pkcs11 ? await openPkcs11Kek(config.pkcs11) : undefined;
    // Seals under the HSM's key when there is one; opens what the deployment secret (before the move to
    // the HSM) and the HSM's previous key sealed too, until `signet keys rewrap` has re-sealed it.
    const secretKek = deploymentSecretKek(secret);
    const kek: KeyRing = keyRing(hsmKek ?? secretKek, ...(hsmKek?.previous ? [hsmKek.previous] : []), secretKek);

    let worker: OutboxWorker | undefined;
    const handlers = options.handlers ?? activityHandlers;
    const clock = options.clock ?? systemClock;
    const pipeline = new ActivityPipeline({
      db,
      config,
      secret,
      keys,
      kek,
      oidc: new OidcVerifier({ issuers: config.oidcIssuers, clock, ...(options.oidcAgent ? { agent: options.oidcAgent } : {}) }),
      handlers,
      now: clock,
      onQueued: () => worker?.wake(),
      log: { warn: (object, message) => app.log.warn(object, message) },
    });
    const outbox = { depth: () => outboxDepth(db), channels: CHANNELS, outcomes: ATTEMPT_OUTCOMES };
    const metrics = new Metrics(outbox, [...handlers, ...voteRoutes].map((declared) => declared.activityType), (error) =>
      app.log.warn({ err: error }, 'metrics: cannot read the outbox depth; reported as NaN'),
    );
    const app = buildApp({ config, db, ping: () => ping(db), pipeline, credentials: new CredentialCache(), handlers, adminToken: token.token, metrics, clock, kek, logger: options.logger ?? false, onQueued: () => worker?.wake() });
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
    return { app, db, worker: started, url, adminToken: token.token, kek, connections, ...(devCredentials ? { devCredentials } : {}), ...(secretFile ? { secretFile } : {}), close };
  } catch (error) {
    await hsmKek?.close();
    if (ownsDb) {
      await db.close({ discardNew: true });
      made.remove();
    }
    throw ownsDb ? storeProblem(error, config) : error;
  }
}
