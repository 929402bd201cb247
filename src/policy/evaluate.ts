// The interpreter: walks a compiled expression's tree over the values bound to its keywords, within a
// step budget. Every failure (absent field, wrong type, index out of range, budget spent) is a value.
import type { CompiledExpression } from './compile.ts';
import { sameValue } from './ethereumAddress.ts';
import { ExpressionFailure, capture, type Result } from './failure.ts';
import { isInt, type PolicyInt } from './integers.ts';
import { KEYWORDS, type Bindings } from './keywords.ts';
import { startOf, type Node } from './parser.ts';

/** Nodes evaluated (and list items visited by in, contains, slices) before an evaluation fails. */
export const DEFAULT_MAX_STEPS = 100_000;

/** Steps every expression of one decision may take together (decide and mayVote share one). */
export const DECISION_MAX_STEPS = 200_000;

/** What is left of a budget several evaluations share: each takes its steps from it. */
export interface StepBudget {
  steps: number;
  readonly of: number;
}

export const stepBudget = (steps: number = DECISION_MAX_STEPS): StepBudget => ({ steps, of: steps });

export interface EvaluationOptions {
  readonly maxSteps?: number;
  /** Shared with the other evaluations of one decision. */
  readonly budget?: StepBudget;
}

/** Bound variables, innermost first: a chain, so binding one per list item costs no copy. */
export interface Scope {
  readonly name: string;
  readonly value: unknown;
  readonly outer: Scope | undefined;
}

function lookup(scope: Scope | undefined, name: string): { value: unknown } | undefined {
  for (let at = scope; at !== undefined; at = at.outer) if (at.name === name) return at;
  return undefined;
}
type Primitive = boolean | PolicyInt | string | null;

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'number':
      // Beyond 2^53 - 1 in size (rounded when it was read) or with a fraction: not an exact int (integers.ts).
      return Number.isSafeInteger(value) ? 'int' : 'number (not an exact int)';
    case 'bigint':
      return 'int';
    case 'string':
      return 'string';
    case 'object':
      return 'struct';
    default:
      return 'nothing';
  }
}

const isPrimitive = (value: unknown): value is Primitive =>
  typeof value === 'string' || typeof value === 'boolean' || value === null || isInt(value);
const isStruct = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class Evaluator {
  private steps = 0;
  private readonly keywords: ReadonlyMap<string, unknown>;

  constructor(
    bindings: Bindings,
    private readonly maxSteps: number = DEFAULT_MAX_STEPS,
    private readonly budget?: StepBudget,
  ) {
    // A keyword bound to nothing (eth when the activity signs nothing) stays unbound.
    this.keywords = new Map(Object.entries(bindings).filter(([, value]) => value !== undefined));
  }

  private tick(node: Node, count = 1): void {
    this.steps += count;
    if (this.steps > this.maxSteps) throw new ExpressionFailure(node.position, `evaluation exceeded its budget of ${this.maxSteps} steps`);
    if (this.budget) {
      this.budget.steps -= count;
      if (this.budget.steps < 0) {
        throw new ExpressionFailure(node.position, `the decision's expressions exceeded their shared budget of ${this.budget.of} steps`);
      }
    }
  }

  /** The boolean value of `node`; throws ExpressionFailure when it has none. */
  truth(node: Node, scope: Scope | undefined): boolean {
    const value = this.value(node, scope);
    if (typeof value !== 'boolean') throw new ExpressionFailure(startOf(node), `expected bool, found ${kindOf(value)}`);
    return value;
  }

  value(node: Node, scope: Scope | undefined): unknown {
    this.tick(node);
    switch (node.type) {
      case 'literal':
        return node.value;
      case 'list':
        return node.items.map((item) => this.value(item, scope));
      case 'name': {
        const bound = lookup(scope, node.name);
        if (bound !== undefined) return bound.value;
        if (this.keywords.has(node.name)) return this.keywords.get(node.name);
        // A condition keyword other than activity (eth, solana, wallet, …) is bound only when the activity signs.
        if (KEYWORDS.condition.has(node.name) && this.keywords.has('activity')) {
          throw new ExpressionFailure(node.position, `'${node.name}' has no value here: it is bound only when an activity signs a transaction or payload, or names a wallet or key`);
        }
        throw new ExpressionFailure(node.position, `unknown keyword '${node.name}'`);
      }
      case 'logical': {
        // Left to right, stopping at the operand that decides (as all/any do): a guard such as
        // `activity.type == 'X' && activity.params.field == 1` must not fail, and so deny through a
        // failing DENY, on activities that have no `field`.
        const decisive = node.operator === '||';
        for (const operand of node.operands) if (this.truth(operand, scope) === decisive) return decisive;
        return !decisive;
      }
      case 'compare':
        return this.compare(node, scope);
      case 'field':
        return this.field(this.value(node.target, scope), node.field, node.position);
      case 'index': {
        const target = this.value(node.target, scope);
        const index = this.value(node.index, scope);
        if (isStruct(target) && typeof index === 'string') {
          // A key computed from the activity is data (perhaps a secret): an error names only a key written in the policy.
          const written = node.index.type === 'literal';
          return this.field(target, index, startOf(node.index), written);
        }
        if (!Array.isArray(target) && typeof target !== 'string') {
          throw new ExpressionFailure(startOf(node.target), `expected list or string to index, found ${kindOf(target)}`);
        }
        if (!isInt(index)) throw new ExpressionFailure(startOf(node.index), `expected int index, found ${kindOf(index)}`);
        if (index < 0 || index >= target.length) {
          throw new ExpressionFailure(startOf(node.index), `index ${index} out of range for a ${kindOf(target)} of length ${target.length}`);
        }
        return target[Number(index)];
      }
      case 'slice': {
        const target = this.value(node.target, scope);
        const start = this.value(node.start, scope);
        const end = this.value(node.end, scope);
        if (!Array.isArray(target) && typeof target !== 'string') {
          throw new ExpressionFailure(startOf(node.target), `expected list or string to slice, found ${kindOf(target)}`);
        }
        for (const [bound, at] of [
          [start, node.start],
          [end, node.end],
        ] as const) {
          if (!isInt(bound)) throw new ExpressionFailure(startOf(at), `expected int, found ${kindOf(bound)}`);
        }
        const [from, to] = [start as PolicyInt, end as PolicyInt];
        if (from < 0 || from > to || to > target.length) {
          throw new ExpressionFailure(node.position, `slice [${from}..${to}] out of range for a ${kindOf(target)} of length ${target.length}`);
        }
        // Within 0 and the length, so numbers exactly, whatever they were.
        const [first, last] = [Number(from), Number(to)];
        if (Array.isArray(target)) this.tick(node, last - first);
        return target.slice(first, last);
      }
      case 'call':
        return this.call(node, scope);
    }
  }

  private field(target: unknown, field: string, position: number, written = true): unknown {
    const name = written ? `'${field}'` : 'of the computed name';
    if (!isStruct(target)) throw new ExpressionFailure(position, `expected a struct to read the field ${name} from, found ${kindOf(target)}`);
    // Own fields only: `constructor` or `__proto__` must read as absent, not as JavaScript's.
    if (!Object.hasOwn(target, field) || target[field] === undefined) throw new ExpressionFailure(position, `no field ${name}`);
    return target[field];
  }

  private compare(node: Extract<Node, { type: 'compare' }>, scope: Scope | undefined): boolean {
    const left = this.value(node.left, scope);
    const right = this.value(node.right, scope);
    if (node.operator === 'in') return this.member(node, left, right, node.left, node.right);
    if (node.operator === '==' || node.operator === '!=') {
      if (!isPrimitive(left) || !isPrimitive(right) || kindOf(left) !== kindOf(right)) {
        throw new ExpressionFailure(node.position, `cannot compare ${kindOf(left)} with ${kindOf(right)}`);
      }
      return sameValue(left, right) === (node.operator === '==');
    }
    if (!isInt(left) || !isInt(right)) {
      throw new ExpressionFailure(node.position, `expected int ${node.operator} int, found ${kindOf(left)} ${node.operator} ${kindOf(right)}`);
    }
    // JavaScript's own comparisons: exact for two numbers, two bigints, or one of each.
    switch (node.operator) {
      case '<':
        return left < right;
      case '>':
        return left > right;
      case '<=':
        return left <= right;
      default:
        return left >= right;
    }
  }

  /**
   * `value in list`, `list.contains(value)`: equal to some item of the same kind (Ethereum addresses in
   * any case), as `list.any(v, v == value)` is: an item of another kind before the match is an error,
   * as `==` between them is (an int and a string, or a number that is no exact int, never just false).
   */
  private member(node: Node, value: unknown, list: unknown, valueNode: Node, listNode: Node): boolean {
    if (!Array.isArray(list)) throw new ExpressionFailure(startOf(listNode), `expected list, found ${kindOf(list)}`);
    if (!isPrimitive(value)) throw new ExpressionFailure(startOf(valueNode), `expected bool, int or string, found ${kindOf(value)}`);
    this.tick(node, list.length);
    for (const item of list) {
      if (sameValue(item, value)) return true;
      if (typeof item !== typeof value || (typeof item === 'number' && !Number.isSafeInteger(item))) {
        if (!isInt(item) || !isInt(value)) throw new ExpressionFailure(node.position, `cannot compare ${kindOf(value)} with ${kindOf(item)} (an item of the list)`);
      }
    }
    return false;
  }

  private call(node: Extract<Node, { type: 'call' }>, scope: Scope | undefined): unknown {
    const target = this.value(node.target, scope);
    if (!Array.isArray(target)) throw new ExpressionFailure(node.position, `expected list before '.${node.function}', found ${kindOf(target)}`);
    switch (node.function) {
      case 'count':
        return target.length;
      case 'contains':
        return this.member(node, this.value(node.argument!, scope), target, node.argument!, node.target);
      default: {
        // Plain loops, no closure per call: this is the innermost loop of nested all/any/filter.
        const selected: unknown[] = [];
        for (const item of target) {
          const holds = this.truth(node.argument!, { name: node.variable!, value: item, outer: scope });
          if (node.function === 'all' && !holds) return false;
          if (node.function === 'any' && holds) return true;
          if (node.function === 'filter' && holds) selected.push(item);
        }
        return node.function === 'filter' ? selected : node.function === 'all';
      }
    }
  }
}

/** Evaluates a compiled expression over `bindings` (its kind's keywords) to true or false, or an error. */
export function evaluate(expression: CompiledExpression, bindings: Bindings, options: EvaluationOptions = {}): Result<boolean> {
  return capture(() => new Evaluator(bindings, options.maxSteps, options.budget).truth(expression.root, undefined));
}
