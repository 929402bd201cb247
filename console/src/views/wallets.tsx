// Wallets: the signatures that wait for approvals (list_activities of the signing types, waiting),
// each with the account it would sign with, what it signs in words (list_activities' `summaries`,
// when its decision read one) and its payload, linked to the activity where it is
// approved or rejected; then the organization's wallets (list_wallets), each with its accounts
// (list_wallet_accounts: address, derivation path, curve, address format). Only what the public API
// answers: a wallet's mnemonic and an account's private key never leave Signet, so none is shown.
import type { Activity, Api } from '../api.ts';
import { Loading, Table, Time } from '../ui/components.tsx';
import { activityHref, CONSENSUS_NEEDED, LoadError, useLoaded } from '../ui/submission.tsx';

/** The signing activities (the waiting ones of these types are listed); a type Signet does not serve yet matches nothing. */
const SIGNING_TYPES = ['ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'];
/** Accounts listed per wallet (list_wallet_accounts' largest page). */
const ACCOUNTS_PAGE = 100;
/** Characters of a payload shown in the list; the activity's page shows all of it. */
const PAYLOAD_SHOWN = 240;

interface Wallet {
  walletId: string;
  walletName: string;
  createdAt: unknown;
}
interface Account {
  walletAccountId: string;
  address: string;
  path: string;
  curve: string;
  addressFormat: string;
}

export function WalletsView(props: { api: Api; path: string[] }) {
  return (
    <section class="wallets">
      <h1>Wallets</h1>
      <WaitingSignatures api={props.api} />
      <h2>Wallets and accounts</h2>
      <WalletList api={props.api} />
    </section>
  );
}

/** What a signing activity asks: the account, and each payload as its encoding reads it. */
function signingRequest(activity: Activity): { signWith: string; payloads: string[]; how: string } {
  const intent = Object.values(activity.intent)[0] as Record<string, unknown> | undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const payloads = Array.isArray(intent?.payloads) ? intent.payloads.map(text) : [text(intent?.payload ?? intent?.unsignedTransaction)];
  const how = [intent?.encoding, intent?.hashFunction, intent?.type].filter((part): part is string => typeof part === 'string').join(' · ');
  return { signWith: text(intent?.signWith), payloads, how };
}

/** A summary's one line, when the list gave one for the activity. */
function summaryText(summary: { text?: unknown } | undefined): string | undefined {
  return typeof summary?.text === 'string' ? summary.text : undefined;
}

function Payload(props: { value: string }) {
  const { value } = props;
  if (value.length <= PAYLOAD_SHOWN) return <code class="payload">{value}</code>;
  return (
    <>
      <code class="payload">{value.slice(0, PAYLOAD_SHOWN)}…</code> <span class="muted">({value.length} characters: the whole payload is on the activity’s page)</span>
    </>
  );
}

function WaitingSignatures(props: { api: Api }) {
  const { api } = props;
  const loaded = useLoaded(
    () =>
      api
        .query<{ activities: Activity[]; summaries?: Record<string, { text?: unknown }> }>('list_activities', {
          filterByStatus: [CONSENSUS_NEEDED],
          filterByType: SIGNING_TYPES,
          paginationOptions: { limit: '100' },
        })
        .then((answer) => answer.activities.map((activity) => ({ activity, summary: summaryText(answer.summaries?.[activity.id]) }))),
    [api],
  );
  return (
    <section aria-labelledby="waiting-signatures-heading">
      <h2 id="waiting-signatures-heading">Signatures waiting for approval</h2>
      {loaded.state === 'loading' && <Loading what="the signatures waiting for approval" />}
      {loaded.state === 'failed' && <LoadError what="the signatures waiting for approval" error={loaded.error} />}
      {loaded.state === 'ready' &&
        (loaded.value.length === 0 ? (
          <p class="muted">No signature waits for approval.</p>
        ) : (
          <Table caption="Signatures waiting for approval, newest first" head={['Activity', 'Sign with', 'Payload', 'Submitted', 'Your vote']} first={['Sign with']}>
            {loaded.value.map(({ activity, summary }) => {
              const request = signingRequest(activity);
              return (
                <tr key={activity.id}>
                  <th scope="row">
                    <a href={activityHref(activity.id)}>{activity.type === 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS' ? `Sign ${request.payloads.length} payloads` : 'Sign a payload'}</a>
                    <div class="muted id">{activity.id}</div>
                  </th>
                  <td>
                    <code class="id">{request.signWith}</code>
                  </td>
                  <td>
                    {summary !== undefined && <p class="summary-text">{summary}</p>}
                    <ol class="payloads">
                      {request.payloads.map((payload, index) => (
                        <li key={index}>
                          <Payload value={payload} />
                        </li>
                      ))}
                    </ol>
                    {request.how && <div class="muted">{request.how}</div>}
                  </td>
                  <td>
                    <Time value={activity.createdAt} />
                  </td>
                  <td>{activity.canApprove ? <strong>Needed</strong> : '—'}</td>
                </tr>
              );
            })}
          </Table>
        ))}
    </section>
  );
}

function WalletList(props: { api: Api }) {
  const { api } = props;
  const loaded = useLoaded(() => api.query<{ wallets: Wallet[] }>('list_wallets').then((answer) => answer.wallets), [api]);
  if (loaded.state === 'loading') return <Loading what="the wallets" />;
  if (loaded.state === 'failed') return <LoadError what="the wallets" error={loaded.error} />;
  if (loaded.value.length === 0) return <p class="muted">The organization has no wallet yet.</p>;
  return (
    <>
      {loaded.value.map((wallet) => (
        <WalletAccounts key={wallet.walletId} api={api} wallet={wallet} />
      ))}
    </>
  );
}

function WalletAccounts(props: { api: Api; wallet: Wallet }) {
  const { api, wallet } = props;
  const loaded = useLoaded(
    () =>
      api
        .query<{ accounts: Account[] }>('list_wallet_accounts', { walletId: wallet.walletId, paginationOptions: { limit: String(ACCOUNTS_PAGE) } })
        .then((answer) => answer.accounts),
    [api, wallet.walletId],
  );
  const headingId = `wallet-${wallet.walletId}`;
  return (
    <section class="wallet card" aria-labelledby={headingId}>
      <h3 id={headingId}>{wallet.walletName}</h3>
      <p class="muted">
        <span class="id">{wallet.walletId}</span> · created <Time value={wallet.createdAt} />
      </p>
      {loaded.state === 'loading' && <Loading what={`the accounts of ${wallet.walletName}`} />}
      {loaded.state === 'failed' && <LoadError what={`the accounts of ${wallet.walletName}`} error={loaded.error} />}
      {loaded.state === 'ready' && (
        <>
          <Table caption={`Accounts of ${wallet.walletName}`} head={['Address', 'Path', 'Curve', 'Address format']} first={['Path']}>
            {loaded.value.map((account) => (
              <tr key={account.walletAccountId}>
                <th scope="row">
                  <code class="id">{account.address}</code>
                </th>
                <td>
                  <code>{account.path}</code>
                </td>
                <td>{account.curve.replace(/^CURVE_/, '')}</td>
                <td>{account.addressFormat.replace(/^ADDRESS_FORMAT_/, '')}</td>
              </tr>
            ))}
          </Table>
          {loaded.value.length === ACCOUNTS_PAGE && <p class="muted">The newest {ACCOUNTS_PAGE} accounts are shown.</p>}
        </>
      )}
    </section>
  );
}
