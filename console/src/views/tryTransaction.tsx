// Try a transaction: a pasted unsigned transaction decided against the organization's live root
// quorum and policies, as if a user submitted it for signing and some users approved it
// (evaluate_policies: nothing is stored, sent or signed). It answers whether it would be signed at
// once, wait for approvals (and whose could still allow it) or be refused, each policy's outcome, a
// policy whose expression could not be evaluated with the place in it, and what the transaction does
// as the organization's smart contract interfaces decode it.
import { useState } from 'preact/hooks';
import type { Api } from '../api.ts';
import { Button, ErrorBox, Field, fieldId, Loading, Table } from '../ui/components.tsx';
import { LoadError, useLoaded } from '../ui/submission.tsx';
import { UserChoices, type ChoosableUser } from '../ui/userChoices.tsx';

interface PolicyEvaluation {
  policyId: string;
  policyName?: string;
  outcome: string;
  error?: string;
  position?: number;
}

interface DryRun {
  outcome: string;
  policyEvaluations: PolicyEvaluation[];
  couldBeApprovedBy: string[];
  summary?: { text?: string };
}

const TRANSACTION_TYPES = [
  { value: 'TRANSACTION_TYPE_ETHEREUM', label: 'Ethereum' },
  { value: 'TRANSACTION_TYPE_SOLANA', label: 'Solana' },
];

const OUTCOME_WORDS: Record<string, string> = {
  OUTCOME_ALLOW: 'Allowed: it would be signed at once.',
  OUTCOME_REQUIRES_CONSENSUS: 'It would wait for approvals.',
  OUTCOME_DENY_EXPLICIT: 'Refused: a policy denies it.',
  OUTCOME_DENY_IMPLICIT: 'Refused: neither the root quorum nor any policy allows it.',
  OUTCOME_ERROR: 'A policy could not be evaluated.',
};

const outcomeWord = (outcome: string) => outcome.replace(/^OUTCOME_/, '').toLowerCase().replace(/_/g, ' ');

export function TryTransactionView(props: { api: Api; path: string[] }) {
  const { api } = props;
  const users = useLoaded(() => api.query<{ users: ChoosableUser[] }>('list_users').then((answer) => answer.users), [api]);
  const [signWith, setSignWith] = useState('');
  const [type, setType] = useState(TRANSACTION_TYPES[0]!.value);
  const [unsignedTransaction, setUnsignedTransaction] = useState('');
  const [userId, setUserId] = useState(api.userId);
  const [approvers, setApprovers] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [answer, setAnswer] = useState<DryRun | undefined>(undefined);
  const [ids] = useState(() => ({ signWith: fieldId('sign-with'), type: fieldId('transaction-type'), transaction: fieldId('transaction'), user: fieldId('as-user') }));

  if (users.state === 'loading') return <Loading what="the users" />;
  if (users.state === 'failed') return <LoadError what="the users" error={users.error} />;
  const nameOf = (id: string) => users.value.find((user) => user.userId === id)?.userName ?? id;

  const tryIt = async () => {
    setBusy(true);
    setError(undefined);
    setAnswer(undefined);
    try {
      const parameters = { signWith: signWith.trim(), unsignedTransaction: unsignedTransaction.trim(), type };
      setAnswer(
        await api.query<DryRun>('evaluate_policies', {
          activity: { type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', parameters },
          userId,
          approverIds: [...approvers].filter((id) => id !== userId),
        }),
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="try-transaction">
      <h1>Try a transaction</h1>
      <p>
        Paste an unsigned transaction to see what the organization's root quorum and policies would decide if a user asked to sign it. Nothing is
        stored, sent or signed.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void tryIt();
        }}
      >
        <Field id={ids.signWith} label="Sign with" value={signWith} onInput={setSignWith} hint="A wallet account's address, or a private key's id or address" />
        <div class="field">
          <label for={ids.type}>Transaction type</label>
          <select id={ids.type} value={type} onChange={(event) => setType((event.currentTarget as HTMLSelectElement).value)}>
            {TRANSACTION_TYPES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <Field
          id={ids.transaction}
          label="Unsigned transaction"
          value={unsignedTransaction}
          onInput={setUnsignedTransaction}
          multiline
          hint="Hexadecimal, as a wallet library serializes it (0x optional)"
        />
        <div class="field">
          <label for={ids.user}>Submitted by</label>
          <select id={ids.user} value={userId} onChange={(event) => setUserId((event.currentTarget as HTMLSelectElement).value)}>
            {users.value.map((user) => (
              <option key={user.userId} value={user.userId}>
                {user.userName}
                {user.userId === api.userId ? ' (you)' : ''}
              </option>
            ))}
          </select>
        </div>
        <UserChoices legend="Approved also by" idPrefix="try-approver" users={users.value.filter((user) => user.userId !== userId)} chosen={approvers} onChange={setApprovers} />
        <Button type="submit" kind="primary" disabled={busy || signWith.trim() === '' || unsignedTransaction.trim() === ''}>
          {busy ? 'Trying…' : 'Try'}
        </Button>
      </form>
      <ErrorBox error={error} />
      {answer && <DryRunAnswer answer={answer} nameOf={nameOf} />}
    </section>
  );
}

function DryRunAnswer(props: { answer: DryRun; nameOf: (userId: string) => string }) {
  const { answer, nameOf } = props;
  return (
    <section class="dry-run" aria-labelledby="dry-run-heading">
      <h2 id="dry-run-heading">Decision</h2>
      <p role="status" class={`outcome outcome-${outcomeWord(answer.outcome).replace(/ /g, '-')}`}>
        <strong>{OUTCOME_WORDS[answer.outcome] ?? answer.outcome}</strong>
      </p>
      {answer.summary?.text && (
        <p class="summary">
          <span class="muted">What it does: </span>
          {answer.summary.text}
        </p>
      )}
      {answer.outcome === 'OUTCOME_REQUIRES_CONSENSUS' && (
        <p>
          {answer.couldBeApprovedBy.length === 0
            ? 'No other user of the organization could approve it.'
            : `Could still be approved by: ${answer.couldBeApprovedBy.map(nameOf).join(', ')}.`}
        </p>
      )}
      {answer.policyEvaluations.length === 0 ? (
        <p class="muted">No policy was consulted (the root quorum decided alone, or the organization has no policy).</p>
      ) : (
        <Table caption="Each policy's outcome" head={['Policy', 'Outcome', 'Error']} first={['Outcome']}>
          {answer.policyEvaluations.map((evaluation) => (
            <tr key={evaluation.policyId}>
              <th scope="row">{evaluation.policyName ?? evaluation.policyId}</th>
              <td>{outcomeWord(evaluation.outcome)}</td>
              <td>{evaluation.error ? `${evaluation.error}${evaluation.position !== undefined ? ` (at character ${evaluation.position + 1})` : ''}` : '—'}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
