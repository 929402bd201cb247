// A policy expression as stored with its policy: parsed and type-checked once, when the policy is
// written, against the keywords of its kind. The compiled form is what evaluate.ts and decide.ts take.
import { capture, type Result } from './failure.ts';
import type { ExpressionKind } from './keywords.ts';
import { parse, type Node } from './parser.ts';
import { typecheck } from './typecheck.ts';

export interface CompiledExpression {
  readonly kind: ExpressionKind;
  readonly source: string;
  readonly root: Node;
}

/** Parses and type-checks `source` as a `kind` expression; a problem comes back as an error value. */
export function compileExpression(source: string, kind: ExpressionKind): Result<CompiledExpression> {
  return capture(() => {
    const root = parse(source);
    typecheck(root, kind);
    return Object.freeze({ kind, source, root });
  });
}
