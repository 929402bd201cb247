// The policy module's public surface: compile expressions when a policy is written, decide when an
// activity is submitted or voted on. Pure: no I/O, no imports from other folders.
export { ACTIONS, ACTIVITY_RESOURCES, activityKind, activityResource, RESOURCES, type Action, type ActivityResource, type Resource } from './activityResources.ts';
export { compileExpression, type CompiledExpression } from './compile.ts';
export {
  decide,
  mayVote,
  OUTCOMES,
  type Approver,
  type Decision,
  type DecisionContext,
  type DecisionInput,
  type Effect,
  type Outcome,
  type Policy,
  type PolicyEvaluation,
  type RootQuorum,
} from './decide.ts';
export { DECISION_MAX_STEPS, DEFAULT_MAX_STEPS, evaluate, stepBudget, type EvaluationOptions, type StepBudget } from './evaluate.ts';
export type { ExpressionError, Result } from './failure.ts';
export {
  CREDENTIAL_TYPES,
  type Bindings,
  type CredentialType,
  type ExpressionKind,
  type PolicyActivity,
  type PolicyCredential,
  type PolicyUser,
  type PolicyStruct,
  type PolicyValue,
  type SigningBindings,
} from './keywords.ts';
export { isEthereumAddress } from './ethereumAddress.ts';
export { normalizeInt, type PolicyInt } from './integers.ts';
export { paramsForPolicy, snakeCase } from './params.ts';
export { MAX_EXPRESSION_LENGTH, MAX_NESTING } from './parser.ts';
