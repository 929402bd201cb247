// How many connections the server holds open. Each holds a file descriptor until it closes, and a
// client trickling a body holds it for up to SIGNET_REQUEST_TIMEOUT_MS; past the process's open-file
// limit, accepting fails and so does every file or socket the database, the outbox and the logs open,
// so every client is refused. The server therefore holds at most the open-file limit (read at start)
// minus a reserve for those, and at most SIGNET_MAX_CONNECTIONS_PER_ADDRESS per client; a connection
// over either bound is closed as soon as it is accepted, before anything is read from it, which costs
// the server next to nothing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { addressMatcher, connectionClient } from './clientAddress.ts';
import type { ConnectionRefusal, Metrics } from './metrics.ts';

/**
 * Descriptors kept for everything but client connections: Node itself, standard streams and logs, the
 * outbox's SMTP, SMS and logo connections, files read (base); and the store: PostgreSQL's pool plus the
 * migration connection, or the embedded store's files (up to some 450 for the whole schema).
 */
export const DESCRIPTOR_RESERVE = { base: 64, embeddedStore: 512 } as const;

/** Fewer connections than this and the server is of little use; the start-up warns. */
export const MIN_CONNECTIONS = 32;

const LOG_EVERY_MS = 10_000;

/**
 * The soft limit of open files of this process, or undefined when it is unlimited or unknown. Node
 * raises the soft limit to the hard one as it starts, so this is the hard limit the process was given.
 */
export function openFileLimit(): number | undefined {
  let text: string | undefined;
  try {
    text = /^Max open files\s+(\S+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'))?.[1];
  } catch {
    // Not Linux. A child inherits the limit; a POSIX shell reports it (Windows has no such limit).
    if (process.platform !== 'win32') {
      try {
        text = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 5000 }).trim();
      } catch {
        text = undefined;
      }
    }
  }
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

export interface ConnectionBounds {
  /** The open-file limit read at start; undefined when unlimited or unknown. */
  openFiles: number | undefined;
  /** Descriptors kept for the store, the outbox, logs and files. */
  reserve: number;
  /** Open connections the server holds at most; undefined: no bound. */
  maxConnections: number | undefined;
  /** Per client address; 0: no cap. */
  perAddress: number;
}

export function connectionBounds(config: Config, openFiles: number | undefined): ConnectionBounds {
  const reserve = DESCRIPTOR_RESERVE.base + (config.databaseUrl ? config.database.poolSize + 1 : DESCRIPTOR_RESERVE.embeddedStore);
  return {
    openFiles,
    reserve,
    maxConnections: openFiles === undefined ? undefined : Math.max(MIN_CONNECTIONS, openFiles - reserve),
    perAddress: config.maxConnectionsPerAddress,
  };
}

/** Applies the bounds to a server not yet listening, counting and logging what they refuse. */
export function limitConnections(
  server: Server,
  bounds: ConnectionBounds,
  config: Pick<Config, 'trustedProxies'>,
  metrics: Metrics,
  log: FastifyBaseLogger,
): void {
  if (bounds.openFiles !== undefined && bounds.openFiles - bounds.reserve < MIN_CONNECTIONS) {
    log.warn(
      { openFiles: bounds.openFiles, reserve: bounds.reserve, maxConnections: bounds.maxConnections },
      `the open-file limit (${bounds.openFiles}) leaves room for few connections: raise it to ${bounds.reserve + 1024} or more (LimitNOFILE= for a systemd service, ulimit -n in a shell)`,
    );
  }
  const refused = refusalLog(metrics, log, bounds);
  if (bounds.maxConnections !== undefined) {
    // Node closes a connection over maxConnections as it accepts it.
    server.maxConnections = bounds.maxConnections;
    server.on('drop', () => refused('server'));
  }
  if (bounds.perAddress === 0) return;
  const proxy = addressMatcher(config.trustedProxies);
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    if (proxy(socket.remoteAddress)) return;
    const client = connectionClient(socket.remoteAddress);
    const count = open.get(client) ?? 0;
    if (count >= bounds.perAddress) {
      socket.destroy();
      refused('address');
      return;
    }
    open.set(client, count + 1);
    socket.once('close', () => {
      const left = open.get(client)! - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
  });
}

/** Counts every refusal; logs at most one line per reason every 10 s, with how many since the last. */
function refusalLog(metrics: Metrics, log: FastifyBaseLogger, bounds: ConnectionBounds): (reason: ConnectionRefusal) => void {
  const state = { address: { last: 0, since: 0 }, server: { last: 0, since: 0 } };
  const messages = {
    address: `a client address holds ${bounds.perAddress} connections (SIGNET_MAX_CONNECTIONS_PER_ADDRESS): closed its new ones`,
    server: `the server holds ${bounds.maxConnections} connections, all its open-file limit (${bounds.openFiles}) allows: closed new ones; raise LimitNOFILE or ulimit -n`,
  };
  return (reason) => {
    metrics.connectionRefused(reason);
    const entry = state[reason];
    entry.since += 1;
    if (Date.now() - entry.last < LOG_EVERY_MS) return;
    log.warn({ reason, refused: entry.since }, messages[reason]);
    entry.last = Date.now();
    entry.since = 0;
  };
}
