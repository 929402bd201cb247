// What the benchmark reads from /proc about the processes it measures (same machine): CPU time of a
// process and of PostgreSQL's backends, resident memory now and at its peak, and how busy the host is.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type pg from 'pg';

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a whole process (all its threads) in ms, or undefined once it is gone. */
export function cpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces) start at state, field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** VmRSS (now) and VmHWM (peak since the process started) in MiB. */
export function memoryMiB(pid: number): { rss: number; peak: number } | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/**
 * CPU ms of the whole host (all CPUs): busy (this machine's work), stolen (time a virtual machine's
 * CPUs were ready to run but the hypervisor ran someone else, /proc/stat "steal") and total.
 */
export function hostCpu(): { busy: number; stolen: number; total: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.slice(0, 8).reduce((a, b) => a + b, 0); // guest time is already inside user
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  const stolen = values[7] ?? 0;
  const ms = (ticks: number) => (ticks * 1000) / CLOCK_TICKS;
  return { busy: ms(total - idle - stolen), stolen: ms(stolen), total: ms(total) };
}

/**
 * CPU time spent by the PostgreSQL backends serving one client process during a round. The backends
 * are found in pg_stat_activity (the bench database, told apart by application_name) and their
 * /proc/<pid>/stat read every 200 ms: a backend that appears during the round counts whole (its
 * connection set-up is part of the cost), one that ends counts up to its last reading.
 */
export class BackendCpu {
  private readonly start = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> = Promise.resolve();
  private first = true;
  appeared = 0;
  vanished = 0;

  constructor(
    private readonly client: pg.Client,
    private readonly database: string,
    /** Whose backends: the floor's (its application_name) or every other one of the database but our own. */
    private readonly owner: 'floor' | 'signet',
  ) {}

  async begin(): Promise<void> {
    await this.sample();
    this.first = false;
    this.timer = setInterval(() => {
      this.sampling = this.sampling.then(() => this.sample()).catch(() => {});
    }, 200);
  }

  /** CPU ms of the owner's backends since begin(). */
  async end(): Promise<number> {
    clearInterval(this.timer);
    await this.sampling;
    const before = new Set(this.last.keys());
    await this.sample();
    for (const pid of before) if (cpuMs(pid) === undefined) this.vanished++;
    let total = 0;
    for (const [pid, ms] of this.last) total += ms - (this.start.get(pid) ?? 0);
    return total;
  }

  private async sample(): Promise<void> {
    const { rows } = await this.client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()
          AND (application_name = 'signet-bench-floor') = $2`,
      [this.database, this.owner === 'floor'],
    );
    for (const { pid } of rows) {
      const ms = cpuMs(pid);
      if (ms === undefined) continue;
      if (!this.start.has(pid)) {
        this.start.set(pid, this.first ? ms : 0);
        if (!this.first) this.appeared++;
      }
      this.last.set(pid, ms);
    }
  }
}
