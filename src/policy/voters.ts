// Whether a consensus expression counts a user, whose approval can then move it towards true: the
// activity waits for more approvals (consensus needed) and the user may vote on it.
import type { CompiledExpression } from './compile.ts';
import { ExpressionFailure } from './failure.ts';
import type { Bindings, PolicyCredential, PolicyUser } from './keywords.ts';
import { Evaluator, type StepBudget } from './evaluate.ts';
import type { Node } from './parser.ts';

type Call = Extract<Node, { type: 'call' }>;

/** A user and the credentials they stamp with. */
export interface Candidate {
  readonly user: PolicyUser;
  readonly credentials: readonly PolicyCredential[];
}

const SELECTABLE = new Set(['approvers', 'credentials']);

/**
 * The keyword a chain `keyword.filter(…).filter(…)` starts from, with its filters innermost first, or
 * undefined when `node` is not such a chain (or the keyword is shadowed by a bound variable).
 */
function selection(node: Node, shadowed: ReadonlySet<string>): { keyword: string; filters: Call[] } | undefined {
  if (node.type === 'name') return SELECTABLE.has(node.name) && !shadowed.has(node.name) ? { keyword: node.name, filters: [] } : undefined;
  if (node.type !== 'call' || node.function !== 'filter') return undefined;
  const inner = selection(node.target, shadowed);
  if (inner) inner.filters.push(node);
  return inner;
}

/**
 * True when the expression selects approvers (or their credentials) by a predicate the candidate
 * meets — `approvers.any(u, …)`, `approvers.filter(u, …).filter(…).count()` — or counts every
 * approver — `approvers.count()`. all() and contains() select no one; a predicate that fails for the
 * candidate alone (it reads an outer variable) does not count them.
 */
export function countsVoter(consensus: CompiledExpression, candidate: Candidate, bindings: Bindings, budget?: StepBudget): boolean {
  // One budget for the whole analysis, however many predicates the expression has.
  const evaluator = new Evaluator(bindings, undefined, budget);
  const passes = (predicates: readonly Call[], item: unknown): boolean =>
    predicates.every((call) => {
      try {
        return evaluator.truth(call.argument!, { name: call.variable!, value: item, outer: undefined });
      } catch (failure) {
        // A predicate that cannot be decided for this user alone (it reads an outer variable, say) does not count them.
        if (failure instanceof ExpressionFailure) return false;
        throw failure;
      }
    });

  const walk = (node: Node, shadowed: ReadonlySet<string>): boolean => {
    if (node.type === 'call') {
      const chain = selection(node.target, shadowed);
      if (chain !== undefined) {
        const predicates = node.function === 'any' || node.function === 'filter' ? [...chain.filters, node] : chain.filters;
        if (node.function !== 'all' && node.function !== 'contains') {
          const items = chain.keyword === 'approvers' ? [candidate.user] : candidate.credentials;
          if (items.some((item) => passes(predicates, item))) return true;
        }
        return [...chain.filters, node].some((call) => call.argument !== undefined && walk(call.argument, within(shadowed, call)));
      }
    }
    return children(node).some((child) => walk(child, node.type === 'call' && child === node.argument ? within(shadowed, node) : shadowed));
  };
  return walk(consensus.root, new Set());
}

function within(shadowed: ReadonlySet<string>, call: Call): ReadonlySet<string> {
  return call.variable === undefined ? shadowed : new Set(shadowed).add(call.variable);
}

function children(node: Node): readonly Node[] {
  switch (node.type) {
    case 'literal':
    case 'name':
      return [];
    case 'list':
      return node.items;
    case 'logical':
      return node.operands;
    case 'compare':
      return [node.left, node.right];
    case 'field':
      return [node.target];
    case 'index':
      return [node.target, node.index];
    case 'slice':
      return [node.target, node.start, node.end];
    case 'call':
      return node.argument === undefined ? [node.target] : [node.target, node.argument];
  }
}
