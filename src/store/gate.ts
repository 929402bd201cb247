// The checks that write, which an activity's statement runs before it writes the activity (a file
// of its own: the stores that make gates and the activities' store that runs them both need it).
import type { Sql } from './sql.ts';

/**
 * A check that writes: a statement part that runs only when `proceed` (an SQL condition) holds and
 * yields a row when it succeeded, e.g. taking an OTP send from a rate window, or marking an OTP used.
 * The activity is written only when every gate succeeded; each runs only after the previous one did.
 */
export interface Gate {
  statement(proceed: Sql): Sql;
  /** An expression telling more about a refusal (e.g. seconds until a window frees), read when the gate failed. */
  detail?: Sql;
}
