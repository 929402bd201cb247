// Where `signet serve` writes its log lines: gathered for a short while and handed to the output in
// one write, so a busy server makes tens of writes a second rather than one per activity. Each write
// to standard output costs more than the line it carries: a hand-over to a libuv worker thread and
// back, a system call, and a wake-up of the reader (a supervisor, a pipe, a terminal). On an idle
// machine that is a few microseconds; on a machine whose cores are all busy every wake-up waits for
// a core, and a server writing a line per activity spent much of its time so.
//
// Nothing is dropped: the output (sonic-boom, asynchronous) keeps whatever the reader has not taken
// yet, the gathered lines are handed over on a timer, when they reach BATCH_BYTES, at flushSync (a
// graceful stop) and when the process exits for any reason Node runs its exit handlers for.
import pino from 'pino';

/** How long a line may wait to be written (a busy server writes at most this often, plus when a batch fills). */
export const FLUSH_INTERVAL_MS = 50;
/** A batch this large is written at once. */
export const BATCH_BYTES = 64 * 1024;

/** What the log lines are written to: sonic-boom's interface, as far as it is used. */
export interface LogSink {
  write(data: string): unknown;
  flushSync(): void;
}

export class BatchedLogOutput {
  private pending: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly onExit = () => this.flushSync();

  constructor(
    private readonly sink: LogSink,
    private readonly intervalMs = FLUSH_INTERVAL_MS,
  ) {
    // Before pino's own exit handler for the output, so the lines gathered here are in it when it flushes.
    process.prependListener('exit', this.onExit);
  }

  /** Called by pino with one serialized line (newline included). */
  write(line: string): boolean {
    this.pending.push(line);
    this.bytes += line.length;
    if (this.bytes >= BATCH_BYTES) this.flush();
    else if (this.timer === undefined) {
      // Not unref'd: a process ending on its own hands its last lines over before pino closes the output.
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
    }
    return true;
  }

  /** Hands the gathered lines to the output (which writes them asynchronously). */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return;
    const batch = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.bytes = 0;
    this.sink.write(batch);
  }

  /** Writes every line given so far before returning (a stop, an exit). */
  flushSync(): void {
    this.flush();
    this.sink.flushSync();
  }

  /** Stops listening for the process's exit (tests that make many). */
  detach(): void {
    process.off('exit', this.onExit);
  }
}

/** The log output of `signet serve`: file descriptor 1 or 2, written asynchronously, in batches. */
export function logOutput(fd: 1 | 2): BatchedLogOutput {
  return new BatchedLogOutput(pino.destination({ dest: fd, sync: false }));
}
