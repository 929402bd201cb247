// Sub-organizations: the organization's sub-organizations (list_suborgs), newest first in pages of
// ten, found by a user's email or phone number (or by the sub-organization's or a user's name), or
// only those whose user verified that contact (list_verified_suborgs). Each is shown with its name
// and users (get_organization, which a parent may read in its sub-organizations).
import { useState } from 'preact/hooks';
import type { Api } from '../api.ts';
import { messageOf, violationsOf } from '../ui/refusal.ts';
import { plural, Table } from '../ui/components.tsx';
import { LoadError, useLoaded } from '../ui/submission.tsx';

const FILTERS = [
  { value: 'EMAIL', label: 'A user’s email address' },
  { value: 'PHONE_NUMBER', label: 'A user’s phone number' },
  { value: 'NAME', label: 'The sub-organization’s name' },
  { value: 'USERNAME', label: 'A user’s name' },
  { value: '', label: 'Every sub-organization' },
] as const;
const PAGE = 10;

interface Search {
  filterType: string;
  filterValue: string;
  verified: boolean;
  /** Cursors of the pages before this one (the last id of each), to page back. */
  after: string[];
}

interface SubOrganization {
  organizationId: string;
  name?: string;
  users?: Array<{ userName: string; userEmail?: string; userPhoneNumber?: string }>;
  error?: string;
}

export function SubOrganizationsView(props: { api: Api; path: string[] }) {
  const { api } = props;
  const [filterType, setFilterType] = useState('EMAIL');
  const [filterValue, setFilterValue] = useState('');
  const [verified, setVerified] = useState(false);
  const [search, setSearch] = useState<Search>({ filterType: '', filterValue: '', verified: false, after: [] });

  const loaded = useLoaded(async () => {
    const cursor = search.after[search.after.length - 1];
    const body: Record<string, unknown> = { paginationOptions: { limit: String(PAGE), ...(cursor ? { after: cursor } : {}) } };
    if (search.filterType) Object.assign(body, { filterType: search.filterType, filterValue: search.filterValue });
    const name = search.verified ? 'list_verified_suborgs' : 'list_suborgs';
    const { organizationIds } = await api.query<{ organizationIds: string[] }>(name, body);
    // The search travels with its answer: while the next one runs, the page still says what this one was.
    return { search, found: await Promise.all(organizationIds.map((id) => describe(api, id))) };
  }, [search]);

  const canVerify = filterType === 'EMAIL' || filterType === 'PHONE_NUMBER';
  function find(event: Event) {
    event.preventDefault();
    setSearch({ filterType, filterValue: filterType ? filterValue.trim() : '', verified: canVerify && verified, after: [] });
  }

  return (
    <section class="sub-organizations">
      <h1>Sub-organizations</h1>
      <form class="search" role="search" onSubmit={find} aria-label="Find sub-organizations">
        <div class="field">
          <label for="suborg-filter-type">Find by</label>
          <select id="suborg-filter-type" value={filterType} onChange={(e) => setFilterType((e.currentTarget as HTMLSelectElement).value)}>
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </div>
        {filterType && (
          <div class="field">
            <label for="suborg-filter-value">{filterType === 'EMAIL' ? 'Email address' : filterType === 'PHONE_NUMBER' ? 'Phone number (+…)' : 'Name'}</label>
            <input
              id="suborg-filter-value"
              required
              maxLength={1024}
              type={filterType === 'EMAIL' ? 'email' : filterType === 'PHONE_NUMBER' ? 'tel' : 'text'}
              value={filterValue}
              onInput={(e) => setFilterValue((e.currentTarget as HTMLInputElement).value)}
            />
          </div>
        )}
        {canVerify && (
          <div class="field checkbox">
            <input id="suborg-verified" type="checkbox" checked={verified} onChange={(e) => setVerified((e.currentTarget as HTMLInputElement).checked)} />
            <label for="suborg-verified">Only where the user verified it (by a one-time code)</label>
          </div>
        )}
        <div class="actions">
          <button type="submit" class="button primary">Search</button>
        </div>
      </form>
      {loaded.state === 'loading' && <p role="status">Searching…</p>}
      {loaded.state === 'failed' && <SearchError error={loaded.error} />}
      {loaded.state === 'ready' && (
        <Results found={loaded.value.found} search={loaded.value.search} onPage={(after) => setSearch({ ...loaded.value.search, after })} />
      )}
    </section>
  );
}

async function describe(api: Api, organizationId: string): Promise<SubOrganization> {
  try {
    const { organizationData } = await api.query<{ organizationData: { name: string; users: SubOrganization['users'] } }>('get_organization', { organizationId });
    return { organizationId, name: organizationData.name, users: organizationData.users };
  } catch (error) {
    return { organizationId, error: messageOf(error) };
  }
}

function SearchError(props: { error: unknown }) {
  const violation = violationsOf(props.error)[0];
  return violation ? (
    <p class="outcome error" role="alert">
      The search was refused: <code>{violation.field}</code> {violation.description}
    </p>
  ) : (
    <LoadError what="the sub-organizations" error={props.error} />
  );
}

function Results(props: { found: SubOrganization[]; search: Search; onPage(after: string[]): void }) {
  const { found, search } = props;
  const what = search.filterType ? `matching ${search.filterValue}${search.verified ? ' (verified)' : ''}` : '';
  // Words joined by one space: "1 sub-organization:", "Sub-organizations matching … (page 2):".
  const heading = [found.length === PAGE ? 'Sub-organizations' : plural(found.length, 'sub-organization'), what, search.after.length > 0 ? `(page ${search.after.length + 1})` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <>
      <p role="status">
        {found.length === 0 ? (search.after.length > 0 ? 'No more sub-organizations.' : `No sub-organization ${what || 'yet'}.`) : `${heading}:`}
      </p>
      {found.length > 0 && (
        <Table caption="Sub-organizations found" head={['Name', 'Id', 'Users']} first={['Users']}>
            {found.map((s) => (
              <tr key={s.organizationId}>
                <th scope="row">{s.name ?? <span class="muted">{s.error}</span>}</th>
                <td>
                  <code>{s.organizationId}</code>
                </td>
                <td>
                  {(s.users ?? []).map((u, i) => (
                    <div key={i}>
                      {u.userName}
                      {u.userEmail ? ` <${u.userEmail}>` : ''}
                      {u.userPhoneNumber ? ` ${u.userPhoneNumber}` : ''}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </Table>
      )}
      <div class="actions pager">
        {search.after.length > 0 && (
          <button type="button" class="button plain" onClick={() => props.onPage(search.after.slice(0, -1))}>
            Previous page
          </button>
        )}
        {found.length === PAGE && (
          <button type="button" class="button plain" onClick={() => props.onPage([...search.after, found[found.length - 1]!.organizationId])}>
            Next page
          </button>
        )}
      </div>
    </>
  );
}
