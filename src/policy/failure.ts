// The one shape of every problem found in a policy expression (lexing, parsing, type checking,
// evaluation): a 1-based character position in the expression and what was expected or went wrong.

export interface ExpressionError {
  /** 1-based character (UTF-16 code unit) position in the expression's source. */
  readonly position: number;
  /** `at <position>: <what>`, e.g. `at 17: expected ')'`. */
  readonly message: string;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ExpressionError };

/**
 * Thrown inside the lexer, parser, checker and evaluator to unwind to their public entry point,
 * which catches it (and only it) and returns the error as a value: no exception leaves the module.
 */
export class ExpressionFailure extends Error {
  override name = 'ExpressionFailure';
  readonly error: ExpressionError;
  constructor(position: number, what: string) {
    super(`at ${position}: ${what}`);
    this.error = { position, message: this.message };
  }
}

/** Runs `body`, turning an ExpressionFailure into an error value; anything else is a bug and propagates. */
export function capture<T>(body: () => T): Result<T> {
  try {
    return { ok: true, value: body() };
  } catch (failure) {
    if (failure instanceof ExpressionFailure) return { ok: false, error: failure.error };
    throw failure;
  }
}
