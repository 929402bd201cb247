// The root quorum: who decides every activity alone (get_organization's rootQuorum, with the users'
// names), and its replacement (update_root_quorum: threshold and users), which only the current root
// quorum may decide, so it usually waits for the other members' approvals.
import { UserChoices } from '../ui/userChoices.tsx';
import { useState } from 'preact/hooks';
import type { Api } from '../api.ts';
import { violationsAt } from '../ui/refusal.ts';
import { Loading, Table } from '../ui/components.tsx';
import { completed, LoadError, OutcomeNote, useLoaded, useSubmission } from '../ui/submission.tsx';

interface Quorum {
  threshold: number;
  userIds: string[];
}
interface Organization {
  organizationId: string;
  name: string;
  users: Array<{ userId: string; userName: string; userEmail?: string }>;
  rootQuorum: Quorum;
}

export function RootQuorumView(props: { api: Api; path: string[] }) {
  const { api } = props;
  const [version, setVersion] = useState(0);
  const loaded = useLoaded(() => api.query<{ organizationData: Organization }>('get_organization').then((a) => a.organizationData), [version]);
  if (loaded.state === 'loading') return <Loading what="the root quorum" />;
  if (loaded.state === 'failed') return <LoadError what="the organization" error={loaded.error} />;
  const organization = loaded.value;
  const names = new Map(organization.users.map((u) => [u.userId, u.userName]));
  const { rootQuorum } = organization;
  return (
    <section class="root-quorum">
      <h1>Root quorum</h1>
      <p>
        {rootQuorum.userIds.length === 1 ? (
          <>When this user approves an activity of {organization.name}, it is allowed without consulting any policy.</>
        ) : (
          <>
            When at least <strong>{rootQuorum.threshold}</strong> of these {rootQuorum.userIds.length} users approve an activity of {organization.name}, it
            is allowed without consulting any policy.
          </>
        )}
      </p>
      <Table caption="Members of the root quorum" head={['Member', 'User id']}>
          {rootQuorum.userIds.map((id) => (
            <tr key={id}>
              <th scope="row">{names.get(id) ?? <span class="muted">(not among the first users listed)</span>}</th>
              <td>
                <code>{id}</code>
              </td>
            </tr>
          ))}
        </Table>
      <h2>Change the root quorum</h2>
      <QuorumForm api={api} organization={organization} onChanged={() => setVersion((v) => v + 1)} />
    </section>
  );
}

function QuorumForm(props: { api: Api; organization: Organization; onChanged(): void }) {
  const { organization } = props;
  const [members, setMembers] = useState<Set<string>>(new Set(organization.rootQuorum.userIds));
  const [threshold, setThreshold] = useState(String(organization.rootQuorum.threshold));
  const submission = useSubmission();
  const refusal = submission.outcome?.kind === 'refused' ? submission.outcome.error : undefined;
  const thresholdViolation = refusal === undefined ? undefined : violationsAt(refusal, 'threshold')[0];

  async function change(event: Event) {
    event.preventDefault();
    const activity = await submission.run(
      () => props.api.submit('update_root_quorum', 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { threshold: Number(threshold), userIds: [...members] }),
      'Root quorum changed',
    );
    if (completed(activity)) props.onChanged();
  }

  return (
    <form onSubmit={change} aria-label="Change the root quorum">
      <div class="warning" role="note">
        <p>
          <strong>Careful:</strong> the root quorum may do anything in this organization, policies notwithstanding, and only it may change itself. Members
          you leave out lose that power; a threshold higher than the members who can still sign locks the organization. The change is decided by the
          current root quorum alone: while its threshold is above 1, it waits for the approvals of its other members.
        </p>
      </div>
      <UserChoices legend="Members" idPrefix="quorum-user" users={organization.users} chosen={members} onChange={setMembers} withEmail />
      <div class="field">
        <label for="quorum-threshold">Approvals needed (threshold)</label>
        <input
          id="quorum-threshold"
          type="number"
          inputMode="numeric"
          required
          min={1}
          max={Math.max(1, members.size)}
          value={threshold}
          onInput={(e) => setThreshold((e.currentTarget as HTMLInputElement).value)}
          aria-describedby="quorum-threshold-hint quorum-threshold-error"
        />
        <p class="hint" id="quorum-threshold-hint">
          From 1 to the number of members ({members.size}).
        </p>
        {thresholdViolation && (
          <p class="field-error" id="quorum-threshold-error">
            {thresholdViolation.description}
          </p>
        )}
      </div>
      <div class="actions">
        <button type="submit" class="button danger" disabled={submission.busy || members.size === 0}>
          Change the root quorum
        </button>
      </div>
      <OutcomeNote outcome={submission.outcome} fieldsShownElsewhere={['threshold']} />
    </form>
  );
}
