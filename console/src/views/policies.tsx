// Policies: the organization's policies (list_policies), a form that creates one (create_policy) or
// changes one (update_policy, only the fields changed), and its deletion (delete_policy) after a
// confirmation. A condition or consensus the server refuses is shown at the expression: its message
// under the textarea, a caret under the column, the reported character selected.
import { useState } from 'preact/hooks';
import type { ActivityParametersOfType, Api } from '../api.ts';
import { navigate } from '../navigation.ts';
import { ExpressionField } from '../ui/expressionField.tsx';
import { violationsAt } from '../ui/refusal.ts';
import { Loading, Table } from '../ui/components.tsx';
import { completed, ConfirmButton, LoadError, OutcomeNote, useLoaded, useSubmission } from '../ui/submission.tsx';

export interface Policy {
  policyId: string;
  policyName: string;
  effect: 'EFFECT_ALLOW' | 'EFFECT_DENY';
  condition: string;
  consensus: string;
  notes: string;
  createdAt: string;
  updatedAt: string;
}

const effectName = (effect: string) => (effect === 'EFFECT_DENY' ? 'Deny' : 'Allow');
const POLICIES = '/console/policies';

export function PoliciesView(props: { api: Api; path: string[] }) {
  const [version, setVersion] = useState(0);
  const loaded = useLoaded(() => props.api.query<{ policies: Policy[] }>('list_policies').then((a) => a.policies), [version]);
  const reload = () => setVersion((v) => v + 1);
  const editing = props.path[0];

  if (loaded.state === 'loading') return <Loading what="policies" />;
  if (loaded.state === 'failed') return <LoadError what="the policies" error={loaded.error} />;
  const policies = loaded.value;

  if (editing !== undefined) {
    const policy = policies.find((p) => p.policyId === editing);
    return (
      <section class="policies">
        <h1>{policy ? `Policy ${policy.policyName}` : 'Policy'}</h1>
        <p>
          <a href={POLICIES}>All policies</a>
        </p>
        {policy ? <PolicyForm key={policy.policyId} api={props.api} policy={policy} onSaved={reload} /> : <p role="alert">No policy {editing} in this organization.</p>}
      </section>
    );
  }

  return (
    <section class="policies">
      <h1>Policies</h1>
      <p>
        A policy allows or denies the activities its <em>condition</em> holds for, once their approvers meet its <em>consensus</em>. The root quorum
        decides alone whatever it approves.
      </p>
      {policies.length === 0 ? (
        <p>This organization has no policies yet.</p>
      ) : (
        <Table caption="Policies" head={['Name', 'Effect', 'Condition', 'Consensus', 'Notes']} first={['Effect']}>
            {policies.map((p) => (
              <tr key={p.policyId}>
                <th scope="row">
                  <a href={`${POLICIES}/${p.policyId}`}>{p.policyName}</a>
                </th>
                <td>{effectName(p.effect)}</td>
                <td>{p.condition ? <code class="expression">{p.condition}</code> : <span class="muted">every activity</span>}</td>
                <td>{p.consensus ? <code class="expression">{p.consensus}</code> : <span class="muted">any approvers</span>}</td>
                <td>{p.notes}</td>
              </tr>
            ))}
          </Table>
      )}
      <h2>New policy</h2>
      <PolicyForm api={props.api} onSaved={reload} />
    </section>
  );
}

type Fields = Pick<Policy, 'policyName' | 'effect' | 'condition' | 'consensus' | 'notes'>;
const EMPTY: Fields = { policyName: '', effect: 'EFFECT_ALLOW', condition: '', consensus: '', notes: '' };
/** The parameter of each field in create_policy, and in update_policy. */
const CREATE_FIELDS: Record<keyof Fields, string> = { policyName: 'policyName', effect: 'effect', condition: 'condition', consensus: 'consensus', notes: 'notes' };
const UPDATE_FIELDS: Record<keyof Fields, string> = {
  policyName: 'policyName',
  effect: 'policyEffect',
  condition: 'policyCondition',
  consensus: 'policyConsensus',
  notes: 'policyNotes',
};

function PolicyForm(props: { api: Api; policy?: Policy; onSaved(): void }) {
  const { api, policy } = props;
  const [fields, setFields] = useState<Fields>(policy ? pick(policy) : EMPTY);
  // Fields edited since the last refusal: its message no longer describes them.
  const [edited, setEdited] = useState<Set<keyof Fields>>(new Set());
  const submission = useSubmission();
  const deletion = useSubmission();
  const names = policy ? UPDATE_FIELDS : CREATE_FIELDS;
  const prefix = policy ? 'policy' : 'new-policy';

  const set = (key: keyof Fields) => (value: string) => {
    setFields((f) => ({ ...f, [key]: value }));
    setEdited((e) => new Set(e).add(key));
  };
  const refusal = submission.outcome?.kind === 'refused' ? submission.outcome.error : undefined;
  const violationOf = (key: keyof Fields) => (refusal === undefined || edited.has(key) ? undefined : violationsAt(refusal, names[key])[0]);
  const conditionViolation = violationOf('condition');
  const consensusViolation = violationOf('consensus');

  async function save(event: Event) {
    event.preventDefault();
    setEdited(new Set());
    if (!policy) {
      const activity = await submission.run(
        () =>
          api.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
            policyName: fields.policyName,
            effect: fields.effect,
            condition: fields.condition,
            consensus: fields.consensus,
            notes: fields.notes,
          }),
        `Policy “${fields.policyName.trim()}” created`,
      );
      if (completed(activity)) {
        setFields(EMPTY);
        props.onSaved();
      }
      return;
    }
    const changed = (key: keyof Fields) => fields[key] !== policy[key];
    const changes: ActivityParametersOfType['ACTIVITY_TYPE_UPDATE_POLICY_V2'] = {
      policyId: policy.policyId,
      ...(changed('policyName') ? { policyName: fields.policyName } : {}),
      ...(changed('effect') ? { policyEffect: fields.effect } : {}),
      ...(changed('condition') ? { policyCondition: fields.condition } : {}),
      ...(changed('consensus') ? { policyConsensus: fields.consensus } : {}),
      ...(changed('notes') ? { policyNotes: fields.notes } : {}),
    };
    if (Object.keys(changes).length === 1) {
      submission.note('Nothing to save: no field differs from the policy as stored.');
      return;
    }
    const activity = await submission.run(() => api.submit('update_policy', 'ACTIVITY_TYPE_UPDATE_POLICY_V2', changes), `Policy “${fields.policyName.trim()}” saved`);
    if (completed(activity)) props.onSaved();
  }

  async function remove() {
    const activity = await deletion.run(
      () => api.submit('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: policy!.policyId }),
      `Policy “${policy!.policyName}” deleted`,
    );
    if (completed(activity)) {
      props.onSaved();
      navigate(POLICIES);
    }
  }

  const nameViolation = violationOf('policyName');
  return (
    <>
      <form class="policy-form" onSubmit={save} aria-label={policy ? `Edit policy ${policy.policyName}` : 'New policy'}>
        <div class="field">
          <label for={`${prefix}-name`}>Name</label>
          <input
            id={`${prefix}-name`}
            required
            maxLength={256}
            value={fields.policyName}
            aria-invalid={nameViolation ? 'true' : undefined}
            aria-describedby={nameViolation ? `${prefix}-name-error` : undefined}
            onInput={(e) => set('policyName')((e.currentTarget as HTMLInputElement).value)}
          />
          {nameViolation && (
            <p class="field-error" id={`${prefix}-name-error`}>
              {nameViolation.description}
            </p>
          )}
        </div>
        <div class="field">
          <label for={`${prefix}-effect`}>Effect</label>
          <select id={`${prefix}-effect`} value={fields.effect} onChange={(e) => set('effect')((e.currentTarget as HTMLSelectElement).value)}>
            <option value="EFFECT_ALLOW">Allow</option>
            <option value="EFFECT_DENY">Deny</option>
          </select>
        </div>
        <ExpressionField
          id={`${prefix}-condition`}
          label="Condition"
          hint="Which activities, over activity.type, kind, resource, action and params; empty: every activity. Example: activity.resource == 'POLICY'"
          value={fields.condition}
          onInput={set('condition')}
          violation={conditionViolation}
          focusOnError
        />
        <ExpressionField
          id={`${prefix}-consensus`}
          label="Consensus"
          hint="Who must approve, over approvers and credentials; empty: any approvers. Example: approvers.count() >= 2"
          value={fields.consensus}
          onInput={set('consensus')}
          violation={consensusViolation}
          focusOnError={!conditionViolation}
        />
        <div class="field">
          <label for={`${prefix}-notes`}>Notes</label>
          <textarea id={`${prefix}-notes`} rows={2} maxLength={4096} value={fields.notes} onInput={(e) => set('notes')((e.currentTarget as HTMLTextAreaElement).value)} />
        </div>
        <div class="actions">
          <button type="submit" class="button primary" disabled={submission.busy}>
            {policy ? 'Save policy' : 'Create policy'}
          </button>
        </div>
        <OutcomeNote
          outcome={submission.outcome}
          fieldsShownElsewhere={[names.policyName, names.condition, names.consensus].filter((f) => !edited.has(keyOf(names, f)))}
        />
      </form>
      {policy && (
        <div class="danger-zone">
          <h2>Delete</h2>
          <ConfirmButton
            label="Delete policy"
            question={`Delete policy “${policy.policyName}”? Activities it allowed may be denied from then on.`}
            disabled={deletion.busy}
            onConfirm={remove}
          />
          <OutcomeNote outcome={deletion.outcome} />
        </div>
      )}
    </>
  );
}

function pick(p: Policy): Fields {
  return { policyName: p.policyName, effect: p.effect, condition: p.condition, consensus: p.consensus, notes: p.notes };
}

function keyOf(names: Record<keyof Fields, string>, parameter: string): keyof Fields {
  return (Object.keys(names) as Array<keyof Fields>).find((k) => names[k] === parameter)!;
}
