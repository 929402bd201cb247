// The embedded store's single-holder lock: PGlite keeps its own copy of the folder in memory, so two
// processes on one folder overwrite each other's commits. The lock refuses the second one.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// Why this design (Node has no flock): the lock is the folder `<store>.lock` holding one record file
// named uniquely per holder. It is taken by renaming a prepared folder onto that name: atomic, it
// replaces an empty folder and fails on one holding a record, so two starting processes never both
// win. A stale record is removed by its own unique name, never the folder, so two processes
// clearing the same stale lock cannot remove each other's new one. A holder is live if its pid runs
// with the start time it recorded (/proc/<pid>/stat on Linux; a reused pid has another start time),
// so a SIGKILLed holder is seen as gone at once, with no timeout.

interface Holder {
  pid: number;
  /** Start time of the process in clock ticks since boot (Linux); absent elsewhere. */
  startTicks?: number;
  /** What holds the store, for the message: e.g. "signet serve on http://127.0.0.1:8080". */
  holder: string;
  startedAt: string;
}

/** Another live process holds the embedded store. */
export class EmbeddedStoreInUse extends Error {
  override name = 'EmbeddedStoreInUse';
  constructor(storeDir: string, holder: Holder) {
    super(
      `the embedded store in ${storeDir} is in use by process ${holder.pid} (${holder.holder}, started ${holder.startedAt}); ` +
        'stop it first. To run several Signet processes, use PostgreSQL: set SIGNET_DATABASE_URL.',
    );
  }
}

export interface EmbeddedStoreLock {
  /** Idempotent; also runs on process exit. */
  release(): void;
}

interface ProcStat {
  state: string;
  startTicks: number;
}

function procStat(pid: number | 'self'): ProcStat | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces; fields after it are plain.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0]!, startTicks: Number(fields[19]) };
}

function isRunning(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = procStat(holder.pid);
  // Unreadable (no /proc, or hidden): the pid exists, so count it as live rather than risk the data.
  if (!stat || holder.startTicks === undefined) return true;
  return stat.startTicks === holder.startTicks && stat.state !== 'Z' && stat.state !== 'X';
}

function missing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** The record in file; undefined when it is gone meanwhile or is no record (it holds nothing). */
function readHolder(file: string): Holder | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (missing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Holder;
    return Number.isSafeInteger(parsed.pid) && parsed.pid > 0 ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock of the PGlite folder storeDir for this process, or throws EmbeddedStoreInUse
 * naming the live holder. `holder` says what takes it (shown to a refused process).
 */
export function lockEmbeddedStore(storeDir: string, holder: string): EmbeddedStoreLock {
  const lockDir = `${storeDir}.lock`;
  const recordName = `holder-${process.pid}-${randomBytes(6).toString('hex')}.json`;
  const own = procStat('self');
  const record: Holder = {
    pid: process.pid,
    ...(own ? { startTicks: own.startTicks } : {}),
    holder,
    startedAt: new Date().toISOString(),
  };
  fs.mkdirSync(path.dirname(lockDir), { recursive: true, mode: 0o700 });
  const prepared = fs.mkdtempSync(`${lockDir}.new-`);
  try {
    fs.writeFileSync(path.join(prepared, recordName), JSON.stringify(record) + '\n', { mode: 0o600 });
    // Each round either takes the lock, finds a live holder, or removes a stale record; a few
    // rounds cover the rare case of other processes taking and dropping it in between.
    for (let round = 0; round < 10; round++) {
      try {
        fs.renameSync(prepared, lockDir);
        return held(lockDir, recordName);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      }
      let entries: string[];
      try {
        entries = fs.readdirSync(lockDir);
      } catch (error) {
        if (missing(error)) continue; // released meanwhile
        throw error;
      }
      for (const entry of entries) {
        const file = path.join(lockDir, entry);
        const found = readHolder(file);
        if (found && isRunning(found)) throw new EmbeddedStoreInUse(storeDir, found);
        fs.rmSync(file, { recursive: true, force: true });
      }
    }
    throw new Error(`cannot take the lock ${lockDir}: other processes keep taking it; try again`);
  } finally {
    fs.rmSync(prepared, { recursive: true, force: true }); // gone already when the lock was taken
  }
}

function held(lockDir: string, recordName: string): EmbeddedStoreLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    fs.rmSync(path.join(lockDir, recordName), { force: true });
    try {
      fs.rmdirSync(lockDir); // only when empty: a new holder's folder stays
    } catch {
      // taken by another process meanwhile, or already gone
    }
  };
  process.on('exit', release);
  return { release };
}
