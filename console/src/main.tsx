// The console's shell: restores the session kept in IndexedDB or shows the sign-in; then a header
// with the organization, the user and the navigation, and the view the URL names (history routing
// under /console/, so a link such as /console/activities/<id> opens that activity).
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import '../console.css';
import { createApi } from './api.ts';
import { BASE, navigate, onNavigate, segments } from './navigation.ts';
import { HOME, ROUTES } from './routes.ts';
import { SignIn } from './signIn.tsx';
import { forgetSession, loadSession, stamperOf, type Session } from './stamp/session.ts';
import { Button, Loading } from './ui/components.tsx';

function usePath(): string[] {
  const [path, setPath] = useState(() => segments(location.pathname));
  useEffect(() => onNavigate(() => setPath(segments(location.pathname))), []);
  return path;
}

/** Links to /console/… change the view without loading the page again. */
function interceptLinks(event: MouseEvent) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = (event.target as Element | null)?.closest?.('a');
  const href = link?.getAttribute('href');
  if (!link || !href || link.target || !(href === BASE || href.startsWith(BASE + '/'))) return;
  event.preventDefault();
  navigate(href);
}

function Shell(props: { session: Session; onSignOut: () => void }) {
  const { session } = props;
  const path = usePath();
  const api = useMemo(() => createApi(stamperOf(session.credential), session.organizationId, session.userId), [session]);
  const [name = HOME, ...rest] = path;
  const route = ROUTES.find((r) => r.path === name);
  useEffect(() => {
    document.title = `${route?.title ?? 'Not found'} · Signet console`;
  }, [route]);
  const View = route?.component;
  return (
    <div class="shell">
      <header class="top">
        <div class="who">
          <strong class="organization" title={session.organizationId}>
            {session.organizationName}
          </strong>
          <span class="user">
            {session.userName} <span class="muted">({session.credential.kind === 'apiKey' ? 'API key' : 'passkey'})</span>
          </span>
        </div>
        <div class="account">
          <a href={`${BASE}/passkey`}>Add a passkey</a>
          <Button onClick={props.onSignOut}>Sign out</Button>
        </div>
        <nav aria-label="Console">
          <ul>
            {ROUTES.filter((r) => !r.hidden).map((r) => (
              <li key={r.path}>
                <a href={`${BASE}/${r.path}`} aria-current={r.path === name ? 'page' : undefined}>
                  {r.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main class="view">
        {View ? (
          <View key={name} api={api} path={rest} />
        ) : (
          <section>
            <h1>Not found</h1>
            <p>
              The console has no page {location.pathname}. <a href={`${BASE}/${HOME}`}>Go to the activities</a>.
            </p>
          </section>
        )}
      </main>
    </div>
  );
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  useEffect(() => {
    void loadSession().then((kept) => setSession(kept ?? null));
    document.addEventListener('click', interceptLinks);
    return () => document.removeEventListener('click', interceptLinks);
  }, []);
  if (session === undefined) return <Loading what="the console" />;
  if (session === null) {
    return (
      <SignIn
        onSignedIn={(signedIn) => {
          // A deep link (/console/activities/<id>) stays where it was; /console lands on the activities.
          if (segments(location.pathname).length === 0) history.replaceState(null, '', `${BASE}/${HOME}`);
          setSession(signedIn);
        }}
      />
    );
  }
  return (
    <Shell
      session={session}
      onSignOut={() => {
        void forgetSession().then(() => {
          setSession(null);
          history.replaceState(null, '', BASE);
        });
      }}
    />
  );
}

render(<App />, document.getElementById('console')!);
