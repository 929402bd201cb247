// Runs Signet's own binary and scripts as child processes, the way a user does from a shell.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from './root.ts';

export { ROOT };
export const SIGNET_BIN = path.join(ROOT, 'bin', 'signet.js');

let compiled = false;

/**
 * The binary runs dist/, compiled from src/. `npm test` builds it first (pretest); a test file run
 * on its own after a source changed rebuilds it here (the build's --if-stale decides), so a child
 * process never runs stale code.
 */
export function ensureCompiled(): void {
  if (compiled) return;
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build.js'), '--if-stale'], { stdio: 'inherit' });
  compiled = true;
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion (killed after timeoutMs), in the repository unless `cwd` says
 * otherwise, with `env` over this process's environment (or over `baseEnv`).
 */
export function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 120_000,
  cwd = ROOT,
  baseEnv: NodeJS.ProcessEnv = process.env,
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Node's flags for the `signet` child processes: V8 compiles PGlite's WebAssembly with its baseline
 * compiler only, as in the test processes themselves (docs/development.md). Nothing else differs
 * from a user's `signet`.
 */
export const SIGNET_NODE_FLAGS = ['--liftoff-only'];

export function signet(args: string[], env: Record<string, string>): Promise<Finished> {
  ensureCompiled();
  return run(process.execPath, [...SIGNET_NODE_FLAGS, SIGNET_BIN, ...args], env);
}

/** Sends SIGTERM to a child still running and resolves with its exit code once it has exited. */
export function terminate(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Served {
  child: ChildProcess;
  /** Standard output and standard error, as they came. */
  output(): string;
  /** Standard output alone. */
  stdout(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** The levels at which `signet serve` under a pipe writes its `Signet is ready` line (info). */
const READY_LINE_LEVELS = ['info', 'debug', 'trace'];

/**
 * Starts `signet serve` (with `serveArgs`, its flags) and resolves once it is ready: /healthz
 * answers and, at a log level that writes it, the `Signet is ready` line has arrived (it is written
 * after the server listens, asynchronously: a test reading the output at the first answer of
 * /healthz could miss it). With `openFileLimit`, under that limit (`ulimit -n` in a shell that then
 * becomes the server).
 */
export async function serve(env: Record<string, string>, baseUrl: string, timeoutMs = 120_000, openFileLimit?: number, serveArgs: string[] = []): Promise<Served> {
  ensureCompiled();
  const [command, args] =
    openFileLimit === undefined
      ? [process.execPath, [...SIGNET_NODE_FLAGS, SIGNET_BIN, 'serve', ...serveArgs]]
      : ['sh', ['-c', 'ulimit -n "$0" && exec "$@"', String(openFileLimit), process.execPath, ...SIGNET_NODE_FLAGS, SIGNET_BIN, 'serve', ...serveArgs]];
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  child.stdout!.on('data', (d) => {
    output += d;
    stdout += d;
  });
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`signet serve exited early:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`signet serve did not answer within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const level = (env.SIGNET_LOG_LEVEL ?? process.env.SIGNET_LOG_LEVEL ?? '').trim() || 'info';
  while (READY_LINE_LEVELS.includes(level) && !stdout.includes('"msg":"Signet is ready"')) {
    if (child.exitCode !== null) throw new Error(`signet serve exited before its ready line:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`signet serve wrote no ready line within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    child,
    output: () => output,
    stdout: () => stdout,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
