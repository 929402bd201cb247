// Activities: the list (newest first, filtered by status and type, in pages), with the ones waiting
// for the reader's vote first; and one activity (/console/activities/<id>): its intent and result,
// every vote with its signature checked again in this page, the policy evaluations, and Approve /
// Reject when the reader may vote, stamped by the reader; for a signing activity, what it signs in
// words (get_activity's `summary`) above its intent.
import { useEffect, useState } from 'preact/hooks';
import type { Activity, Api } from '../api.ts';
import { Button, ErrorBox, Json, Loading, Status, Table, Time } from '../ui/components.tsx';
import { SigningSummary } from '../ui/signingSummary.tsx';
import type { Policy } from './policies.tsx';
import { checkVote, type Vote, type VoteCheck } from './voteCheck.ts';

const PAGE_SIZE = '20';
const WAITING = 'ACTIVITY_STATUS_CONSENSUS_NEEDED';
const STATUSES: Array<[string, string]> = [
  ['', 'Any status'],
  [WAITING, 'Waiting for approval'],
  ['ACTIVITY_STATUS_COMPLETED', 'Completed'],
  ['ACTIVITY_STATUS_FAILED', 'Failed'],
  ['ACTIVITY_STATUS_REJECTED', 'Rejected'],
];

export function ActivitiesView(props: { api: Api; path: string[] }) {
  const [activityId] = props.path;
  return activityId ? <ActivityDetail api={props.api} activityId={activityId} /> : <ActivityList api={props.api} />;
}

/** ACTIVITY_TYPE_CREATE_POLICY_V3 → "Create policy". */
function typeName(type: string): string {
  const words = type.replace(/^ACTIVITY_TYPE_/, '').replace(/_V\d+$/, '').toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function AwaitingVote(props: { api: Api }) {
  const [waiting, setWaiting] = useState<Activity[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    props.api
      .query<{ activities: Activity[] }>('list_activities', { filterByStatus: [WAITING], paginationOptions: { limit: '100' } })
      .then((answer) => setWaiting(answer.activities.filter((activity) => activity.canApprove)), setError);
  }, [props.api]);
  if (error) return <ErrorBox error={error} />;
  if (!waiting) return <Loading what="the activities waiting for your vote" />;
  return (
    <section class="awaiting" aria-labelledby="awaiting-heading">
      <h2 id="awaiting-heading">Waiting for your vote ({waiting.length})</h2>
      {waiting.length === 0 ? (
        <p class="muted">Nothing waits for your vote.</p>
      ) : (
        <ul class="cards">
          {waiting.map((activity) => (
            <li key={activity.id} class="card waiting">
              <a href={`/console/activities/${activity.id}`}>
                <strong>{typeName(activity.type)}</strong>
              </a>
              <span>
                <Status status={activity.status} /> · submitted <Time value={activity.createdAt} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ActivityList(props: { api: Api }) {
  const { api } = props;
  const [status, setStatus] = useState('');
  const [type, setType] = useState('');
  const [typeDraft, setTypeDraft] = useState('');
  const applyType = () => {
    if (typeDraft !== type) {
      setType(typeDraft);
      setCursor({});
    }
  };
  // The page asked for: newest first, or older than an id, or newer than one.
  const [cursor, setCursor] = useState<{ after?: string; before?: string }>({});
  const [activities, setActivities] = useState<Activity[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);

  useEffect(() => {
    setActivities(undefined);
    setError(undefined);
    const typeFilter = type.trim().toUpperCase();
    api
      .query<{ activities: Activity[] }>('list_activities', {
        ...(status ? { filterByStatus: [status] } : {}),
        ...(typeFilter ? { filterByType: [typeFilter.startsWith('ACTIVITY_TYPE_') ? typeFilter : `ACTIVITY_TYPE_${typeFilter}`] } : {}),
        paginationOptions: { limit: PAGE_SIZE, ...cursor },
      })
      .then((answer) => {
        // Back past the newest page: show the newest page itself.
        if (cursor.before && answer.activities.length < Number(PAGE_SIZE)) setCursor({});
        else setActivities(answer.activities);
      }, setError);
  }, [api, status, type, cursor]);

  return (
    <section>
      <h1>Activities</h1>
      <AwaitingVote api={api} />
      <h2>All activities</h2>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          applyType();
        }}
      >
        <div class="field">
          <label for="filter-status">Status</label>
          <select
            id="filter-status"
            value={status}
            onChange={(event) => {
              setStatus(event.currentTarget.value);
              setCursor({});
            }}
          >
            {STATUSES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-type">Type</label>
          <input
            id="filter-type"
            placeholder="e.g. CREATE_POLICY_V3"
            value={typeDraft}
            spellcheck={false}
            onInput={(event) => setTypeDraft(event.currentTarget.value)}
            onChange={applyType}
          />
        </div>
      </form>
      <ErrorBox error={error} />
      {!activities && !error && <Loading what="activities" />}
      {activities && (
        <>
          <Table caption="Activities, newest first" head={['Activity', 'Status', 'Created', 'Your vote']} first={['Status', 'Your vote']}>
            {activities.map((activity) => (
              <tr key={activity.id}>
                <th scope="row">
                  <a href={`/console/activities/${activity.id}`}>{typeName(activity.type)}</a>
                  <div class="muted id">{activity.id}</div>
                </th>
                <td>
                  <Status status={activity.status} />
                </td>
                <td>
                  <Time value={activity.createdAt} />
                </td>
                <td>{activity.canApprove ? <strong>Needed</strong> : '—'}</td>
              </tr>
            ))}
          </Table>
          {activities.length === 0 && <p class="muted">No activity {cursor.after || cursor.before ? 'on this page' : 'matches'}.</p>}
          <div class="pager">
            <Button disabled={!cursor.after && !cursor.before} onClick={() => activities[0] ? setCursor({ before: activities[0].id }) : setCursor({})}>
              Newer
            </Button>
            <Button disabled={activities.length < Number(PAGE_SIZE)} onClick={() => setCursor({ after: activities[activities.length - 1]!.id })}>
              Older
            </Button>
          </div>
        </>
      )}
    </section>
  );
}

interface PolicyEvaluation {
  id: string;
  voteId: string;
  policyEvaluations: Array<{ policyId: string; outcome: string }>;
  createdAt: unknown;
}

/** Who cast a vote, by its id: the user's name, else the vote id. */
function voterOf(votes: Vote[], voteId: string): string {
  const vote = votes.find((v) => v.id === voteId);
  return vote ? `${vote.user?.userName ?? vote.userId} (${vote.selection === 'VOTE_SELECTION_APPROVED' ? 'approved' : 'rejected'})` : voteId;
}

function VoteMark(props: { check: VoteCheck | undefined }) {
  const { check } = props;
  if (!check) return <span class="muted">checking…</span>;
  if (check.state === 'verified') return <span class="mark verified">✓ verified</span>;
  if (check.state === 'failed') return <span class="mark failed">✗ not verified: {check.reason}</span>;
  return <span class="mark unchecked">cannot check: {check.reason}</span>;
}

/** A policy by its name, linked to its page; by its id when it is no longer in the organization (or the names could not be read). */
function PolicyName(props: { policyId: string; names: Map<string, string> | undefined }) {
  const name = props.names?.get(props.policyId);
  if (name !== undefined) return <a href={`/console/policies/${props.policyId}`}>{name}</a>;
  return (
    <>
      <span class="id">{props.policyId}</span>
      {props.names && <span class="muted"> (deleted policy)</span>}
    </>
  );
}

function ActivityDetail(props: { api: Api; activityId: string }) {
  const { api, activityId } = props;
  const [activity, setActivity] = useState<Activity | undefined>(undefined);
  const [summary, setSummary] = useState<unknown>(undefined);
  const [evaluations, setEvaluations] = useState<PolicyEvaluation[] | undefined>(undefined);
  const [policyNames, setPolicyNames] = useState<Map<string, string> | undefined>(undefined);
  const [checks, setChecks] = useState<Record<string, VoteCheck>>({});
  const [error, setError] = useState<unknown>(undefined);
  const [voteError, setVoteError] = useState<unknown>(undefined);
  const [voting, setVoting] = useState(false);

  async function load() {
    try {
      const [answer, evaluated, policies] = await Promise.all([
        api.query<{ activity: Activity; summary?: unknown }>('get_activity', { activityId }),
        api.query<{ policyEvaluations: PolicyEvaluation[] }>('get_policy_evaluations', { activityId }),
        // Every policy of the organization is in this one answer: one an evaluation names that is not, was deleted.
        api.query<{ policies: Policy[] }>('list_policies').then(
          (listed) => new Map(listed.policies.map((p) => [p.policyId, p.policyName])),
          () => undefined,
        ),
      ]);
      setActivity(answer.activity);
      setSummary(answer.summary);
      setEvaluations(evaluated.policyEvaluations);
      setPolicyNames(policies);
      const votes = answer.activity.votes as Vote[];
      const results = await Promise.all(votes.map((vote) => checkVote(vote)));
      setChecks(Object.fromEntries(votes.map((vote, i) => [vote.id, results[i]!])));
    } catch (caught) {
      setError(caught);
    }
  }
  useEffect(() => {
    void load();
  }, [api, activityId]);

  async function vote(approve: boolean) {
    if (!activity) return;
    setVoting(true);
    setVoteError(undefined);
    try {
      const updated = approve
        ? await api.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: activity.fingerprint })
        : await api.submit('reject_activity', 'ACTIVITY_TYPE_REJECT_ACTIVITY', { fingerprint: activity.fingerprint });
      setActivity(updated);
      await load();
    } catch (caught) {
      setVoteError(caught);
    } finally {
      setVoting(false);
    }
  }

  if (error) {
    return (
      <section>
        <h1>Activity</h1>
        <ErrorBox error={error} />
        <p>
          <a href="/console/activities">Back to the activities</a>
        </p>
      </section>
    );
  }
  if (!activity) return <Loading what="the activity" />;
  const votes = activity.votes as Vote[];
  const { activity: _nested, ...result } = activity.result;
  const failure = activity.failure as { message?: string } | undefined;
  return (
    <section class="detail">
      <p>
        <a href="/console/activities">← Activities</a>
      </p>
      <h1>{typeName(activity.type)}</h1>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Status status={activity.status} />
        </dd>
        <dt>Type</dt>
        <dd class="id">{activity.type}</dd>
        <dt>ID</dt>
        <dd class="id">{activity.id}</dd>
        <dt>Submitted</dt>
        <dd>
          <Time value={activity.createdAt} />
        </dd>
        <dt>Fingerprint</dt>
        <dd class="id">{activity.fingerprint}</dd>
        {failure?.message && (
          <>
            <dt>Failure</dt>
            <dd>{failure.message}</dd>
          </>
        )}
      </dl>
      {(activity.canApprove || activity.canReject) && (
        <div class="vote-actions card waiting">
          <p>This activity waits for approval, and you may vote on it.</p>
          <div class="buttons">
            {activity.canApprove && (
              <Button kind="primary" disabled={voting} onClick={() => void vote(true)}>
                Approve
              </Button>
            )}
            {activity.canReject && (
              <Button kind="danger" disabled={voting} onClick={() => void vote(false)}>
                Reject
              </Button>
            )}
          </div>
        </div>
      )}
      <ErrorBox error={voteError} />
      <SigningSummary summary={summary} />
      <h2>Intent</h2>
      <Json label="Intent" value={activity.intent} />
      <h2>Result</h2>
      {Object.keys(result).length > 0 ? <Json label="Result" value={result} /> : <p class="muted">No result yet.</p>}
      <h2>Votes</h2>
      <Table caption="Votes, each signature checked in this page" head={['User', 'Vote', 'Signed with', 'Signature', 'When']} first={['Vote', 'Signature']}>
        {votes.map((v) => (
          <tr key={v.id}>
            <th scope="row">{v.user?.userName ?? v.userId}</th>
            <td>{v.selection === 'VOTE_SELECTION_APPROVED' ? 'Approved' : 'Rejected'}</td>
            <td>{v.scheme === 'SIGNATURE_SCHEME_WEBAUTHN' ? 'passkey' : 'API key'}</td>
            <td>
              <VoteMark check={checks[v.id]} />
            </td>
            <td>
              <Time value={v.createdAt} />
            </td>
          </tr>
        ))}
      </Table>
      <h2>Policy evaluations</h2>
      {evaluations && evaluations.length > 0 ? (
        <Table caption="What the policies said at each vote" head={['Vote', 'Policy', 'Outcome']} first={['Outcome']}>
          {evaluations.flatMap((evaluation) =>
            (evaluation.policyEvaluations.length > 0 ? evaluation.policyEvaluations : [{ policyId: '', outcome: 'the root quorum counts the votes' }]).map((entry, i) => (
              <tr key={`${evaluation.id}-${i}`}>
                <td>{voterOf(votes, evaluation.voteId)}</td>
                <th scope="row">{entry.policyId ? <PolicyName policyId={entry.policyId} names={policyNames} /> : 'No policy applied'}</th>
                <td>{entry.outcome}</td>
              </tr>
            )),
          )}
        </Table>
      ) : (
        <p class="muted">No policy was evaluated (the root quorum decides, or no vote has been counted).</p>
      )}
    </section>
  );
}
