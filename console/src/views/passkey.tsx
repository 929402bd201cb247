// "Add a passkey": the browser creates a passkey for this site, and the signed-in user submits
// create_authenticators with its attestation. The activity may complete at once or wait for
// approvals; either way its outcome is shown.
import { useState } from 'preact/hooks';
import type { Activity, Api } from '../api.ts';
import { createPasskey } from '../stamp/passkey.ts';
import { Button, ErrorBox, Field, Status } from '../ui/components.tsx';

export function PasskeyView(props: { api: Api; path: string[] }) {
  const { api } = props;
  const [name, setName] = useState('Passkey');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [activity, setActivity] = useState<Activity | undefined>(undefined);

  async function add(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setActivity(undefined);
    try {
      const who = await api.query<{ username: string }>('whoami');
      const passkey = await createPasskey({ userId: api.userId, userName: who.username }, name.trim() || 'Passkey');
      setActivity(await api.submit('create_authenticators', 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2', { userId: api.userId, authenticators: [passkey] }));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section>
      <h1>Add a passkey</h1>
      <p>
        Your browser creates a passkey for this site ({location.hostname}); it is registered to you by a create_authenticators activity,
        which your organization's rules decide like any other.
      </p>
      <form onSubmit={add} class="card">
        <Field id="passkey-name" label="Name of the passkey" value={name} onInput={setName} />
        <Button type="submit" kind="primary" disabled={busy}>
          {busy ? 'Creating the passkey…' : 'Create and register a passkey'}
        </Button>
      </form>
      <ErrorBox error={error} />
      {activity && (
        <p class="outcome" role="status">
          Activity <a href={`/console/activities/${activity.id}`}>{activity.id}</a>: <Status status={activity.status} />
          {activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' && ' — it needs more approvals before the passkey can be used.'}
          {activity.status === 'ACTIVITY_STATUS_COMPLETED' && ' — you can now sign in with this passkey.'}
        </p>
      )}
    </section>
  );
}
