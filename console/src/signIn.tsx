// The first screen: sign in with an API key (organization ID, public and private key in hex, or the
// pasted credentials file `signet org create` writes) or with a passkey (organization ID, then the
// browser asks for the passkey, once, to start a session key: stamp/passkeySession.ts). Either way
// whoami names the user; a refusal shows the server's words.
import { useState } from 'preact/hooks';
import { whoami } from './api.ts';
import { importApiKey, parseCredentialsFile } from './stamp/apiKey.ts';
import { passkeyLogin } from './stamp/passkeySession.ts';
import { saveSession, stamperOf, type Session } from './stamp/session.ts';
import { Button, ErrorBox, Field } from './ui/components.tsx';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function complete(organizationId: string, credential: Session['credential']): Promise<Session> {
  const who = await whoami(stamperOf({ organizationId, credential }), organizationId);
  const session: Session = { organizationId: who.organizationId, organizationName: who.organizationName, userId: who.userId, userName: who.username, credential };
  await saveSession(session);
  return session;
}

function checkOrganization(organizationId: string): string {
  const id = organizationId.trim();
  if (!UUID.test(id)) throw new Error('the organization ID must be a UUID, as signet org create prints it');
  return id;
}

export function SignIn(props: { onSignedIn: (session: Session) => void }) {
  const [organizationId, setOrganizationId] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [pasted, setPasted] = useState('');
  const [busy, setBusy] = useState<'' | 'apiKey' | 'passkey'>('');
  const [error, setError] = useState<unknown>(undefined);

  async function attempt(kind: 'apiKey' | 'passkey', act: () => Promise<Session>) {
    setBusy(kind);
    setError(undefined);
    try {
      const session = await act();
      setPrivateKey(''); // the text is dropped once the key is imported
      setPasted('');
      props.onSignedIn(session);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy('');
    }
  }

  function signInWithApiKey(event: Event) {
    event.preventDefault();
    void attempt('apiKey', async () => {
      const fromFile = pasted.trim() ? parseCredentialsFile(pasted) : {};
      const organization = checkOrganization(fromFile.organizationId ?? organizationId);
      const key = await importApiKey(fromFile.apiPublicKey ?? publicKey, fromFile.apiPrivateKey ?? privateKey);
      return complete(organization, { kind: 'apiKey', publicKey: key.publicKey, privateKey: key.privateKey });
    });
  }

  function signInWithPasskey(event: Event) {
    event.preventDefault();
    void attempt('passkey', async () => {
      const organization = checkOrganization(organizationId);
      // The passkey's one assertion asks for a session key; whoami is then stamped by it (or, when
      // Signet refused one, by the passkey again).
      return complete(organization, await passkeyLogin(organization));
    });
  }

  return (
    <main class="sign-in">
      <h1>Sign in to the Signet console</h1>
      <p>Every request the console makes is stamped here, in this page, by your passkey or API key.</p>
      <ErrorBox error={error} />
      <Field id="organization-id" label="Organization ID" value={organizationId} onInput={setOrganizationId} placeholder="00000000-0000-0000-0000-000000000000" />
      <div class="sign-in-ways">
        <form class="card" onSubmit={signInWithPasskey} aria-labelledby="passkey-heading">
          <h2 id="passkey-heading">With a passkey</h2>
          <p>Your browser asks for a passkey registered for this site ({location.hostname}).</p>
          <Button type="submit" kind="primary" disabled={busy !== ''}>
            {busy === 'passkey' ? 'Waiting for the passkey…' : 'Sign in with a passkey'}
          </Button>
        </form>
        <form class="card" onSubmit={signInWithApiKey} aria-labelledby="api-key-heading">
          <h2 id="api-key-heading">With an API key</h2>
          <Field id="api-public-key" label="API public key (hex)" value={publicKey} onInput={setPublicKey} />
          <Field id="api-private-key" label="API private key (hex)" type="password" value={privateKey} onInput={setPrivateKey} autoComplete="off" />
          <Field
            id="credentials-file"
            label="Or paste the credentials file"
            multiline
            value={pasted}
            onInput={setPasted}
            hint={
              <>
                The JSON <code>signet org create</code> prints or writes (<code>credentials.json</code>). The private key is imported into a key this browser
                cannot read back, then the text is dropped.
              </>
            }
          />
          <Button type="submit" kind="primary" disabled={busy !== ''}>
            {busy === 'apiKey' ? 'Signing in…' : 'Sign in with the API key'}
          </Button>
        </form>
      </div>
    </main>
  );
}
