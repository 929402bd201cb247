// `signet serve`: runs the service until SIGTERM or SIGINT, then stops gracefully within
// SIGNET_SHUTDOWN_TIMEOUT_MS. Where its output goes depends on who reads it: at a terminal, a
// summary for a person on standard output and the JSON log lines on standard error (at warn unless
// SIGNET_LOG_LEVEL says otherwise); under a supervisor or a pipe, JSON log lines only, on standard
// output, the summary among them as one `Signet is ready` line. While it runs, SIGNET_DATA_DIR/server.json
// names its URL, so the CLI and the examples started with the same data folder find it.
import pino from 'pino';
import { settingSource, unknownVariableMessage, unknownVariables, type Config } from '../config.ts';
import { startServer } from '../server.ts';
import { logOutput } from './logOutput.ts';
import { OTHER_VARIABLES, removeServerFile, writeServerFile } from './serverLocation.ts';
import { renderSummary, serverCredentials, startupFacts } from './startup.ts';

export async function serve(config: Config): Promise<number> {
  const terminal = process.stdout.isTTY === true;
  const level = terminal && settingSource('SIGNET_LOG_LEVEL') === 'default' ? 'warn' : config.logLevel;
  // Log lines are written asynchronously and in batches (a busy server neither waits on its output
  // nor pays a write per line), and flushed when the process stops.
  const stream = logOutput(terminal ? 2 : 1);
  // Before the start, so a start that fails on what a mistyped variable left to its default says it too.
  const unknown = unknownVariables(OTHER_VARIABLES);
  if (unknown.length > 0) {
    const early = pino({ level }, stream);
    for (const variable of unknown) early.warn({ variable: variable.name, ...(variable.suggestion ? { suggestion: variable.suggestion } : {}) }, unknownVariableMessage(variable));
    stream.flushSync();
  }
  const server = await startServer(config, { logger: { level, stream } });
  try {
    writeServerFile(config.dataDir, server.url);
  } catch (error) {
    server.app.log.warn({ err: error }, `cannot write ${config.dataDir}/server.json: the CLI and the examples will not find this server without SIGNET_URL`);
  }
  const facts = startupFacts(config, server, await serverCredentials(server.db, config, server.url).catch(() => ({})));
  if (terminal) process.stdout.write(`${renderSummary(facts, level)}\n`);
  else server.app.log.info(facts, 'Signet is ready');
  /** A line for the person at the terminal (the log line says it too, for the log). */
  const say = (text: string) => {
    if (terminal) process.stdout.write(`${text}\n`);
  };

  return new Promise<number>((resolve) => {
    const shutdown = (signal: NodeJS.Signals) => {
      // Listening no more, a second signal of either kind gets Node's default: stop at once.
      process.off('SIGINT', shutdown);
      process.off('SIGTERM', shutdown);
      const started = Date.now();
      removeServerFile(config.dataDir);
      say(`\nStopping (${signal}): finishing the requests in flight and the sends under way…`);
      server.app.log.info({ signal }, 'shutting down: no new connections; finishing the requests in flight and the sends under way');
      // The graceful close is bounded: past SIGNET_SHUTDOWN_TIMEOUT_MS the process exits anyway,
      // which closes every socket left (clients see the connection drop; PostgreSQL ends those
      // sessions, rolling back their transactions). Nothing committed is lost.
      const deadline = setTimeout(() => {
        server.app.log.error(
          { signal, shutdownMs: Date.now() - started },
          `shutdown did not finish within ${config.shutdownTimeoutMs} ms (SIGNET_SHUTDOWN_TIMEOUT_MS); exiting with the requests or delivery in hand cut off`,
        );
        stream.flushSync();
        process.exit(1);
      }, config.shutdownTimeoutMs);
      server.close().then(
        () => {
          clearTimeout(deadline);
          server.app.log.info({ signal, shutdownMs: Date.now() - started }, 'Signet stopped');
          say('Signet stopped.');
          stream.flushSync();
          resolve(0);
        },
        (error) => {
          clearTimeout(deadline);
          server.app.log.error({ err: error }, 'shutdown failed');
          stream.flushSync();
          resolve(1);
        },
      );
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  });
}
