// Users: the organization's users (list_users) with their tags, a user's page (get_user) with its
// tags (update_user's userTagIds replaces them) and all its credentials (get_api_keys,
// get_authenticators), API keys and passkeys, each revoked after a confirmation (delete_api_keys,
// delete_authenticators); a form that creates a user (create_users); the organization's tags
// (list_user_tags), created with their users (create_user_tag) and deleted (delete_user_tags).
import { UserChoices } from '../ui/userChoices.tsx';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Api } from '../api.ts';
import { violationsAt } from '../ui/refusal.ts';
import { Loading, plural, Time, Table } from '../ui/components.tsx';
import { completed, ConfirmButton, LoadError, OutcomeNote, useLoaded, useSubmission } from '../ui/submission.tsx';

interface ApiKey {
  apiKeyId: string;
  apiKeyName: string;
  credential: { publicKey: string; type: string };
  createdAt: string;
  expirationSeconds?: string;
}
interface Authenticator {
  authenticatorId: string;
  authenticatorName: string;
  credentialId: string;
  createdAt: string;
}
interface User {
  userId: string;
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  apiKeys: ApiKey[];
  authenticators: Authenticator[];
  userTags: string[];
  createdAt: string;
}
interface UserTag {
  tagId: string;
  tagName: string;
}

const USERS = '/console/users';
/** Tags read at most, in pages of 100 (an organization has at most 1000). */
const MAX_TAG_PAGES = 10;

async function allTags(api: Api): Promise<UserTag[]> {
  const tags: UserTag[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_TAG_PAGES; page++) {
    const { userTags } = await api.query<{ userTags: UserTag[] }>('list_user_tags', { paginationOptions: { limit: '100', ...(after ? { after } : {}) } });
    tags.push(...userTags);
    if (userTags.length < 100) break;
    after = userTags[userTags.length - 1]!.tagId;
  }
  return tags.sort((a, b) => a.tagName.localeCompare(b.tagName));
}

export function UsersView(props: { api: Api; path: string[] }) {
  const { api } = props;
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((v) => v + 1);
  const loaded = useLoaded(
    () => Promise.all([api.query<{ users: User[] }>('list_users').then((a) => a.users), allTags(api)]),
    [version],
  );
  if (loaded.state === 'loading') return <Loading what="users" />;
  if (loaded.state === 'failed') return <LoadError what="the users" error={loaded.error} />;
  const [users, tags] = loaded.value;
  const tagNames = new Map(tags.map((t) => [t.tagId, t.tagName]));
  const userId = props.path[0];

  if (userId !== undefined) {
    return (
      <section class="users">
        <p>
          <a href={USERS}>All users</a>
        </p>
        <UserDetail key={userId} api={api} userId={userId} version={version} tags={tags} onChanged={reload} />
      </section>
    );
  }

  return (
    <section class="users">
      <h1>Users</h1>
      <Table caption="Users" head={['Name', 'Email', 'Phone', 'Tags', 'Credentials']}>
          {users.map((u) => (
            <tr key={u.userId}>
              <th scope="row">
                <a href={`${USERS}/${u.userId}`}>{u.userName}</a>
              </th>
              <td>{u.userEmail ?? ''}</td>
              <td>{u.userPhoneNumber ?? ''}</td>
              <td>{u.userTags.map((id) => tagNames.get(id) ?? id).join(', ')}</td>
              <td>
                {plural(u.apiKeys.length, 'API key')}, {plural(u.authenticators.length, 'passkey')}
              </td>
            </tr>
          ))}
        </Table>
      <h2>New user</h2>
      <NewUserForm api={api} tags={tags} onCreated={reload} />
      <h2>Tags</h2>
      <TagsSection api={api} tags={tags} users={users} onChanged={reload} />
    </section>
  );
}

function FieldError(props: { id: string; error: unknown; parameter: string }) {
  const violation = props.error === undefined ? undefined : violationsAt(props.error, props.parameter)[0];
  if (!violation) return null;
  return (
    <p class="field-error" id={props.id}>
      {violation.description}
    </p>
  );
}

/** The tags as checkboxes; `none` says where tags are created when there is none. */
function TagChoices(props: { legend: string; idPrefix: string; tags: UserTag[]; chosen: Set<string>; onChange(chosen: Set<string>): void; none: ComponentChildren }) {
  if (props.tags.length === 0) return <p class="muted">{props.none}</p>;
  return (
    <fieldset class="choices">
      <legend>{props.legend}</legend>
      {props.tags.map((t) => (
        <label key={t.tagId} class="choice" for={`${props.idPrefix}-${t.tagId}`}>
          <input
            type="checkbox"
            id={`${props.idPrefix}-${t.tagId}`}
            checked={props.chosen.has(t.tagId)}
            onChange={(e) => {
              const next = new Set(props.chosen);
              if ((e.currentTarget as HTMLInputElement).checked) next.add(t.tagId);
              else next.delete(t.tagId);
              props.onChange(next);
            }}
          />{' '}
          {t.tagName}
        </label>
      ))}
    </fieldset>
  );
}

function NewUserForm(props: { api: Api; tags: UserTag[]; onCreated(): void }) {
  const empty = { userName: '', userEmail: '', userPhoneNumber: '', apiKeyName: '', publicKey: '' };
  const [fields, setFields] = useState(empty);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const submission = useSubmission();
  const refusal = submission.outcome?.kind === 'refused' ? submission.outcome.error : undefined;
  const input = (key: keyof typeof empty) => (e: Event) => setFields((f) => ({ ...f, [key]: (e.currentTarget as HTMLInputElement).value }));

  async function create(event: Event) {
    event.preventDefault();
    const user = {
      userName: fields.userName,
      ...(fields.userEmail ? { userEmail: fields.userEmail } : {}),
      ...(fields.userPhoneNumber ? { userPhoneNumber: fields.userPhoneNumber } : {}),
      apiKeys: fields.publicKey
        ? [{ apiKeyName: fields.apiKeyName || 'API key', publicKey: fields.publicKey.trim(), curveType: 'API_KEY_CURVE_P256' as const }]
        : [],
      authenticators: [],
      oauthProviders: [],
      userTags: [...chosen],
    };
    const activity = await submission.run(
      () => props.api.submit('create_users', 'ACTIVITY_TYPE_CREATE_USERS_V4', { users: [user] }),
      `User “${fields.userName.trim()}” created`,
    );
    if (completed(activity)) {
      setFields(empty);
      setChosen(new Set());
      props.onCreated();
    }
  }

  const text = (key: keyof typeof empty, label: string, parameter: string, attrs: Record<string, unknown> = {}) => (
    <div class="field">
      <label for={`new-user-${key}`}>{label}</label>
      <input id={`new-user-${key}`} value={fields[key]} onInput={input(key)} aria-describedby={`new-user-${key}-error`} {...attrs} />
      <FieldError id={`new-user-${key}-error`} error={refusal} parameter={parameter} />
    </div>
  );
  return (
    <form onSubmit={create} aria-label="New user">
      <p class="hint">A user needs a way to sign in: an email address, a phone number or an API key.</p>
      {text('userName', 'Name', 'users[0].userName', { required: true, maxLength: 256 })}
      {text('userEmail', 'Email', 'users[0].userEmail', { type: 'email', maxLength: 320, autocomplete: 'off' })}
      {text('userPhoneNumber', 'Phone (international, +…)', 'users[0].userPhoneNumber', { type: 'tel', maxLength: 64, autocomplete: 'off' })}
      {text('apiKeyName', 'API key name', 'users[0].apiKeys[0].apiKeyName', { maxLength: 256 })}
      {text('publicKey', 'API key public key (P-256, hex)', 'users[0].apiKeys[0].publicKey', { maxLength: 200, spellcheck: false, autocomplete: 'off' })}
      <TagChoices legend="Tags" idPrefix="new-user-tag" tags={props.tags} chosen={chosen} onChange={setChosen} none="No tags yet: create one under Tags below." />
      <div class="actions">
        <button type="submit" class="button primary" disabled={submission.busy}>
          Create user
        </button>
      </div>
      <OutcomeNote
        outcome={submission.outcome}
        fieldsShownElsewhere={['userName', 'userEmail', 'userPhoneNumber', 'apiKeys[0].apiKeyName', 'apiKeys[0].publicKey'].map((f) => `users[0].${f}`)}
      />
    </form>
  );
}

function TagsSection(props: { api: Api; tags: UserTag[]; users: User[]; onChanged(): void }) {
  const [name, setName] = useState('');
  const [members, setMembers] = useState<Set<string>>(new Set());
  const creation = useSubmission();
  const deletion = useSubmission();
  const refusal = creation.outcome?.kind === 'refused' ? creation.outcome.error : undefined;

  async function create(event: Event) {
    event.preventDefault();
    const activity = await creation.run(
      () => props.api.submit('create_user_tag', 'ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName: name, userIds: [...members] }),
      `Tag “${name.trim()}” created`,
    );
    if (completed(activity)) {
      setName('');
      setMembers(new Set());
      props.onChanged();
    }
  }
  async function remove(tag: UserTag) {
    const activity = await deletion.run(
      () => props.api.submit('delete_user_tags', 'ACTIVITY_TYPE_DELETE_USER_TAGS', { userTagIds: [tag.tagId] }),
      `Tag “${tag.tagName}” deleted`,
    );
    if (completed(activity)) props.onChanged();
  }

  return (
    <>
      {props.tags.length === 0 ? (
        <p>No tags yet. Consensus rules name tags by their id.</p>
      ) : (
        <Table caption="Tags" head={['Tag', 'Id (for consensus rules)', 'Users', 'Actions']} first={['Users', 'Actions']}>
            {props.tags.map((t) => (
              <tr key={t.tagId}>
                <th scope="row">{t.tagName}</th>
                <td>
                  <code>{t.tagId}</code>
                </td>
                <td>{props.users.filter((u) => u.userTags.includes(t.tagId)).length}</td>
                <td>
                  <ConfirmButton
                    label={`Delete tag ${t.tagName}`}
                    question={`Delete tag “${t.tagName}”? Users lose it, and consensus rules naming it no longer count them.`}
                    confirmLabel="Yes, delete the tag"
                    disabled={deletion.busy}
                    onConfirm={() => remove(t)}
                  />
                </td>
              </tr>
            ))}
          </Table>
      )}
      <OutcomeNote outcome={deletion.outcome} />
      <form onSubmit={create} aria-label="New tag">
        <h3>New tag</h3>
        <div class="field">
          <label for="new-tag-name">Tag name</label>
          <input id="new-tag-name" required maxLength={256} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} aria-describedby="new-tag-name-error" />
          <FieldError id="new-tag-name-error" error={refusal} parameter="userTagName" />
        </div>
        <UserChoices legend="Give it to" idPrefix="new-tag-user" users={props.users} chosen={members} onChange={setMembers} />
        <div class="actions">
          <button type="submit" class="button primary" disabled={creation.busy}>
            Create tag
          </button>
        </div>
        <OutcomeNote outcome={creation.outcome} fieldsShownElsewhere={['userTagName']} />
      </form>
    </>
  );
}

function UserDetail(props: { api: Api; userId: string; version: number; tags: UserTag[]; onChanged(): void }) {
  const { api, userId } = props;
  // Read again after each change; the page stays (with what the change did) while it is read.
  // get_user lists a bounded number of credentials; get_api_keys and get_authenticators list them all.
  const loaded = useLoaded(async () => {
    const [{ user }, { apiKeys }, { authenticators }] = await Promise.all([
      api.query<{ user: User }>('get_user', { userId }),
      api.query<{ apiKeys: ApiKey[] }>('get_api_keys', { userId }),
      api.query<{ authenticators: Authenticator[] }>('get_authenticators', { userId }),
    ]);
    return { ...user, apiKeys, authenticators };
  }, [userId, props.version]);
  if (loaded.state === 'loading') return <Loading what="the user" />;
  if (loaded.state === 'failed') return <LoadError what="the user" error={loaded.error} />;
  return <UserPage api={api} user={loaded.value} tags={props.tags} onChanged={props.onChanged} />;
}

function UserPage(props: { api: Api; user: User; tags: UserTag[]; onChanged(): void }) {
  const { api, user } = props;
  const [chosen, setChosen] = useState<Set<string>>(new Set(user.userTags));
  const tagging = useSubmission();
  const revoking = useSubmission();

  async function saveTags(event: Event) {
    event.preventDefault();
    const activity = await tagging.run(
      () => api.submit('update_user', 'ACTIVITY_TYPE_UPDATE_USER', { userId: user.userId, userTagIds: [...chosen] }),
      `Tags of ${user.userName} saved`,
    );
    if (completed(activity)) props.onChanged();
  }
  async function revokeKey(key: ApiKey) {
    const activity = await revoking.run(
      () => api.submit('delete_api_keys', 'ACTIVITY_TYPE_DELETE_API_KEYS', { userId: user.userId, apiKeyIds: [key.apiKeyId] }),
      `API key “${key.apiKeyName}” revoked`,
    );
    if (completed(activity)) props.onChanged();
  }
  async function revokePasskey(passkey: Authenticator) {
    const activity = await revoking.run(
      () => api.submit('delete_authenticators', 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS', { userId: user.userId, authenticatorIds: [passkey.authenticatorId] }),
      `Passkey “${passkey.authenticatorName}” revoked`,
    );
    if (completed(activity)) props.onChanged();
  }
  const own = api.userId === user.userId;

  return (
    <>
      <h1>User {user.userName}</h1>
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{user.userId}</code>
        </dd>
        <dt>Email</dt>
        <dd>{user.userEmail || <span class="muted">none</span>}</dd>
        <dt>Phone</dt>
        <dd>{user.userPhoneNumber || <span class="muted">none</span>}</dd>
        <dt>Created</dt>
        <dd><Time value={user.createdAt} /></dd>
      </dl>
      <h2>Tags</h2>
      <form onSubmit={saveTags} aria-label={`Tags of ${user.userName}`}>
        <TagChoices
          legend={`Tags of ${user.userName}`}
          idPrefix="user-tag"
          tags={props.tags}
          chosen={chosen}
          onChange={setChosen}
          none={
            <>
              No tags yet: create one under <em>New tag</em> on the <a href={USERS}>users page</a>, then give it here.
            </>
          }
        />
        {props.tags.length > 0 && (
          <div class="actions">
            <button type="submit" class="button primary" disabled={tagging.busy}>
              Save tags
            </button>
          </div>
        )}
        <OutcomeNote outcome={tagging.outcome} />
      </form>
      <h2>API keys</h2>
      {user.apiKeys.length === 0 ? (
        <p>No API keys or session keys that may still stamp.</p>
      ) : (
        <Table caption={`API keys of ${user.userName}`} head={['Name', 'Type', 'Public key', 'Created', 'Actions']} first={['Type', 'Actions']}>
            {user.apiKeys.map((k) => (
              <tr key={k.apiKeyId}>
                <th scope="row">{k.apiKeyName}</th>
                <td>{k.credential.type.replace('CREDENTIAL_TYPE_', '')}</td>
                <td>
                  <code class="key">{k.credential.publicKey}</code>
                </td>
                <td><Time value={k.createdAt} /></td>
                <td>
                  <ConfirmButton
                    label={`Revoke API key ${k.apiKeyName}`}
                    question={`Revoke “${k.apiKeyName}”?${own ? ' If it is the key you signed in with, the console stops working for you.' : ''} This cannot be undone.`}
                    confirmLabel="Yes, revoke it"
                    disabled={revoking.busy}
                    onConfirm={() => revokeKey(k)}
                  />
                </td>
              </tr>
            ))}
          </Table>
      )}
      <h2>Passkeys</h2>
      {user.authenticators.length === 0 ? (
        <p>No passkeys.</p>
      ) : (
        <Table caption={`Passkeys of ${user.userName}`} head={['Name', 'Credential id', 'Created', 'Actions']} first={['Actions']}>
            {user.authenticators.map((a) => (
              <tr key={a.authenticatorId}>
                <th scope="row">{a.authenticatorName}</th>
                <td>
                  <code class="key">{a.credentialId}</code>
                </td>
                <td><Time value={a.createdAt} /></td>
                <td>
                  <ConfirmButton
                    label={`Revoke passkey ${a.authenticatorName}`}
                    question={`Revoke the passkey “${a.authenticatorName}”? This cannot be undone.`}
                    confirmLabel="Yes, revoke it"
                    disabled={revoking.busy}
                    onConfirm={() => revokePasskey(a)}
                  />
                </td>
              </tr>
            ))}
          </Table>
      )}
      <OutcomeNote outcome={revoking.outcome} />
    </>
  );
}
