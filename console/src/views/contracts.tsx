// Smart contract interfaces: the organization's stored ABIs and IDLs (list_smart_contract_interfaces,
// newest first in pages), an upload of a JSON file read in the page (never sent anywhere but to
// create_smart_contract_interface) as an Ethereum ABI or a Solana IDL with its address, label and
// notes; an interface's page (get_smart_contract_interface) shows an ABI's functions and events or
// an IDL's instructions as tables, and deletes it (delete_smart_contract_interface) after a confirmation.
import { useState } from 'preact/hooks';
import type { ActivityParametersOfType, Api } from '../api.ts';
import { navigate } from '../navigation.ts';
import { violationsAt } from '../ui/refusal.ts';
import { Loading, plural, Time, Table } from '../ui/components.tsx';
import { completed, ConfirmButton, LoadError, OutcomeNote, useLoaded, useSubmission } from '../ui/submission.tsx';
// The server's limit: a bigger file is refused here before it is read.
import { MAX_INTERFACE_BYTES } from '../../../src/contracts/limits.ts';

const ETHEREUM = 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM';
const SOLANA = 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA';
/** The kinds of interface create_smart_contract_interface takes (the select offers these two). */
type InterfaceType = ActivityParametersOfType['ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE']['type'];
const CONTRACTS = '/console/contracts';
const PAGE = 20;

interface StoredInterface {
  smartContractInterfaceId: string;
  smartContractAddress: string;
  smartContractInterface: string;
  type: string;
  label: string;
  notes: string;
  createdAt: string;
}

const kindName = (type: string) => (type === SOLANA ? 'Solana IDL' : 'Ethereum ABI');

export function ContractsView(props: { api: Api; path: string[] }) {
  const { api } = props;
  const [version, setVersion] = useState(0);
  const [after, setAfter] = useState<string[]>([]);
  const id = props.path[0];
  // The page's cursors travel with its answer: while the next page is read, this one stays consistent.
  const loaded = useLoaded(async () => {
    const cursor = after[after.length - 1];
    const { smartContractInterfaces } = await api.query<{ smartContractInterfaces: StoredInterface[] }>('list_smart_contract_interfaces', {
      paginationOptions: { limit: String(PAGE), ...(cursor ? { after: cursor } : {}) },
    });
    return { after, items: smartContractInterfaces };
  }, [version, after]);

  if (id !== undefined) {
    return (
      <section class="contracts">
        <p>
          <a href={CONTRACTS}>All interfaces</a>
        </p>
        <InterfaceDetail key={id} api={api} id={id} onDeleted={() => setVersion((v) => v + 1)} />
      </section>
    );
  }
  return (
    <section class="contracts">
      <h1>Smart contract interfaces</h1>
      {loaded.state === 'loading' && <Loading what="interfaces" />}
      {loaded.state === 'failed' && <LoadError what="the interfaces" error={loaded.error} />}
      {loaded.state === 'ready' &&
        (loaded.value.items.length === 0 ? (
          <p>{loaded.value.after.length > 0 ? 'No more interfaces.' : 'No interfaces yet: upload an ABI or an IDL below.'}</p>
        ) : (
          <Table caption="Smart contract interfaces" head={['Label', 'Kind', 'Address', 'Notes', 'Created']} first={['Kind']}>
              {loaded.value.items.map((i) => (
                <tr key={i.smartContractInterfaceId}>
                  <th scope="row">
                    <a href={`${CONTRACTS}/${i.smartContractInterfaceId}`}>{i.label}</a>
                  </th>
                  <td>{kindName(i.type)}</td>
                  <td>
                    <code class="key">{i.smartContractAddress}</code>
                  </td>
                  <td>{i.notes}</td>
                  <td><Time value={i.createdAt} /></td>
                </tr>
              ))}
            </Table>
        ))}
      {loaded.state === 'ready' && (
        <div class="actions pager">
          {loaded.value.after.length > 0 && (
            <button type="button" class="button plain" onClick={() => setAfter(loaded.value.after.slice(0, -1))}>
              Previous page
            </button>
          )}
          {loaded.value.items.length === PAGE && (
            <button type="button" class="button plain" onClick={() => setAfter([...loaded.value.after, loaded.value.items[PAGE - 1]!.smartContractInterfaceId])}>
              Next page
            </button>
          )}
        </div>
      )}
      <h2>Upload an interface</h2>
      <UploadForm
        api={api}
        onUploaded={() => {
          setAfter([]);
          setVersion((v) => v + 1);
        }}
      />
    </section>
  );
}

interface Picked {
  fileName: string;
  text: string;
}

function UploadForm(props: { api: Api; onUploaded(): void }) {
  const [picked, setPicked] = useState<Picked | undefined>(undefined);
  const [fileProblem, setFileProblem] = useState<string | undefined>(undefined);
  const [type, setType] = useState<InterfaceType>(ETHEREUM);
  const [address, setAddress] = useState('');
  const [label, setLabel] = useState('');
  const [notes, setNotes] = useState('');
  const submission = useSubmission();
  const refusal = submission.outcome?.kind === 'refused' ? submission.outcome.error : undefined;

  async function pick(event: Event) {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    setPicked(undefined);
    setFileProblem(undefined);
    submission.clear();
    if (!file) return;
    if (file.size > MAX_INTERFACE_BYTES) {
      setFileProblem(`${file.name} is ${file.size} bytes, over the limit of ${MAX_INTERFACE_BYTES} bytes (400 KiB).`);
      return;
    }
    const text = await file.text();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      setFileProblem(`${file.name} is not JSON (${(error as Error).message}): choose the ABI or IDL as a .json file.`);
      return;
    }
    // The kind the document looks like: an ABI is an array of entries, an IDL an object with instructions.
    if (Array.isArray(value)) setType(ETHEREUM);
    else if (value && typeof value === 'object' && 'instructions' in value) {
      setType(SOLANA);
      const idl = value as { address?: unknown; metadata?: { address?: unknown } };
      const programId = typeof idl.address === 'string' ? idl.address : typeof idl.metadata?.address === 'string' ? idl.metadata.address : undefined;
      if (programId && !address) setAddress(programId);
    }
    if (!label) setLabel(file.name.replace(/\.json$/i, ''));
    setPicked({ fileName: file.name, text });
  }

  async function upload(event: Event) {
    event.preventDefault();
    if (!picked) {
      setFileProblem(fileProblem ?? 'Choose a JSON file first.');
      return;
    }
    const activity = await submission.run(
      () =>
        props.api.submit('create_smart_contract_interface', 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
          smartContractAddress: address.trim(),
          smartContractInterface: picked.text,
          type,
          label,
          ...(notes ? { notes } : {}),
        }),
      `Interface “${label.trim()}” stored`,
    );
    if (completed(activity)) {
      setAddress('');
      setLabel('');
      setNotes('');
      props.onUploaded();
    }
  }

  const fieldError = (parameter: string, id: string) => {
    const violations = refusal === undefined ? [] : violationsAt(refusal, parameter);
    return violations.length === 0 ? null : (
      <ul class="field-error" id={id}>
        {violations.map((v, i) => (
          <li key={i}>{v.description}</li>
        ))}
      </ul>
    );
  };
  return (
    <form onSubmit={upload} aria-label="Upload an interface">
      <div class="field">
        <label for="contract-file">ABI or IDL (a JSON file)</label>
        <input id="contract-file" type="file" accept=".json,application/json" required onChange={pick} aria-describedby="contract-file-problem contract-file-error" />
        {fileProblem && (
          <p class="field-error" id="contract-file-problem" role="alert">
            {fileProblem}
          </p>
        )}
        {fieldError('smartContractInterface', 'contract-file-error')}
        {picked && !fileProblem && <p class="hint">{picked.fileName}: {plural(picked.text.length, 'character')} of JSON, read in this page.</p>}
      </div>
      <div class="field">
        <label for="contract-type">Kind</label>
        <select id="contract-type" value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value as InterfaceType)}>
          <option value={ETHEREUM}>Ethereum ABI</option>
          <option value={SOLANA}>Solana IDL</option>
        </select>
      </div>
      <div class="field">
        <label for="contract-address">{type === SOLANA ? 'Program id' : 'Contract address (0x…)'}</label>
        <input
          id="contract-address"
          required
          maxLength={64}
          spellcheck={false}
          autocomplete="off"
          value={address}
          onInput={(e) => setAddress((e.currentTarget as HTMLInputElement).value)}
          aria-describedby="contract-address-error"
        />
        {fieldError('smartContractAddress', 'contract-address-error')}
      </div>
      <div class="field">
        <label for="contract-label">Label</label>
        <input id="contract-label" required maxLength={256} value={label} onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)} aria-describedby="contract-label-error" />
        {fieldError('label', 'contract-label-error')}
      </div>
      <div class="field">
        <label for="contract-notes">Notes</label>
        <textarea id="contract-notes" rows={2} maxLength={4096} value={notes} onInput={(e) => setNotes((e.currentTarget as HTMLTextAreaElement).value)} />
      </div>
      <div class="actions">
        <button type="submit" class="button primary" disabled={submission.busy}>
          Upload
        </button>
      </div>
      <OutcomeNote outcome={submission.outcome} fieldsShownElsewhere={['smartContractInterface', 'smartContractAddress', 'label']} />
    </form>
  );
}

function InterfaceDetail(props: { api: Api; id: string; onDeleted(): void }) {
  const { api, id } = props;
  const loaded = useLoaded(
    () => api.query<{ smartContractInterface: StoredInterface }>('get_smart_contract_interface', { smartContractInterfaceId: id }).then((a) => a.smartContractInterface),
    [id],
  );
  const deletion = useSubmission();
  if (loaded.state === 'loading') return <Loading what="the interface" />;
  if (loaded.state === 'failed') return <LoadError what="the interface" error={loaded.error} />;
  const stored = loaded.value;
  let document: unknown;
  try {
    document = JSON.parse(stored.smartContractInterface);
  } catch {
    document = undefined; // stored interfaces are JSON; shown as text if not
  }

  async function remove() {
    const activity = await deletion.run(
      () => api.submit('delete_smart_contract_interface', 'ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE', { smartContractInterfaceId: stored.smartContractInterfaceId }),
      `Interface “${stored.label}” deleted`,
    );
    if (completed(activity)) {
      props.onDeleted();
      navigate(CONTRACTS);
    }
  }

  return (
    <>
      <h1>{stored.label}</h1>
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{kindName(stored.type)}</dd>
        <dt>{stored.type === SOLANA ? 'Program id' : 'Address'}</dt>
        <dd>
          <code class="key">{stored.smartContractAddress}</code>
        </dd>
        <dt>Notes</dt>
        <dd>{stored.notes || <span class="muted">none</span>}</dd>
        <dt>Created</dt>
        <dd><Time value={stored.createdAt} /></dd>
      </dl>
      {stored.type === SOLANA ? <IdlTables idl={document} /> : <AbiTables abi={document} />}
      <div class="danger-zone">
        <h2>Delete</h2>
        <ConfirmButton label="Delete interface" question={`Delete the interface “${stored.label}”?`} disabled={deletion.busy} onConfirm={remove} />
        <OutcomeNote outcome={deletion.outcome} />
      </div>
    </>
  );
}

interface AbiParameter {
  name?: string;
  type?: string;
  indexed?: boolean;
  components?: AbiParameter[];
}
interface AbiEntry {
  type?: string;
  name?: string;
  inputs?: AbiParameter[];
  outputs?: AbiParameter[];
  stateMutability?: string;
  anonymous?: boolean;
}

/** `uint256 amount`, a tuple as `(address to, uint256 value)[] name`. */
function abiParameter(p: AbiParameter): string {
  const type = p.type ?? '?';
  const shown = type.startsWith('tuple') && p.components ? `(${p.components.map(abiParameter).join(', ')})${type.slice('tuple'.length)}` : type;
  return [shown, p.indexed ? 'indexed' : '', p.name ?? ''].filter(Boolean).join(' ');
}

function ParameterList(props: { parameters: AbiParameter[] | undefined }) {
  const list = props.parameters ?? [];
  if (list.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="parameters">
      {list.map((p, i) => (
        <li key={i}>
          <code>{abiParameter(p)}</code>
        </li>
      ))}
    </ul>
  );
}

function AbiTables(props: { abi: unknown }) {
  const entries: AbiEntry[] = Array.isArray(props.abi) ? (props.abi as AbiEntry[]) : [];
  // Entries without a type are functions, as Solidity's ABI specification says.
  const functions = entries.filter((e) => (e.type ?? 'function') === 'function');
  const events = entries.filter((e) => e.type === 'event');
  return (
    <>
      {functions.length === 0 ? (
        <p>No functions.</p>
      ) : (
        <Table caption="Functions" head={['Name', 'Inputs', 'Outputs', 'State mutability']}>
            {functions.map((f, i) => (
              <tr key={i}>
                <th scope="row">
                  <code>{f.name}</code>
                </th>
                <td>
                  <ParameterList parameters={f.inputs} />
                </td>
                <td>
                  <ParameterList parameters={f.outputs} />
                </td>
                <td>{f.stateMutability ?? ''}</td>
              </tr>
            ))}
          </Table>
      )}
      {events.length === 0 ? (
        <p>No events.</p>
      ) : (
        <Table caption="Events" head={['Name', 'Inputs', 'Anonymous']}>
            {events.map((e, i) => (
              <tr key={i}>
                <th scope="row">
                  <code>{e.name}</code>
                </th>
                <td>
                  <ParameterList parameters={e.inputs} />
                </td>
                <td>{e.anonymous ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </Table>
      )}
    </>
  );
}

interface IdlAccount {
  name?: string;
  isMut?: boolean;
  isSigner?: boolean;
  writable?: boolean;
  signer?: boolean;
  accounts?: IdlAccount[];
}
interface IdlInstruction {
  name?: string;
  accounts?: IdlAccount[];
  args?: Array<{ name?: string; type?: unknown }>;
}

/** An IDL type as text: `u64`, `vec<u8>`, `option<pubkey>`, `[u8; 32]`, a defined type's name. */
function idlType(type: unknown): string {
  if (typeof type === 'string') return type;
  if (!type || typeof type !== 'object') return '?';
  const [form, inner] = Object.entries(type as Record<string, unknown>)[0] ?? ['?', undefined];
  if (form === 'defined') return typeof inner === 'string' ? inner : String((inner as { name?: unknown })?.name ?? '?');
  if (form === 'array' && Array.isArray(inner)) return `[${idlType(inner[0])}; ${typeof inner[1] === 'number' ? inner[1] : '?'}]`;
  if (form === 'generic') return String(inner);
  return `${form}<${idlType(inner)}>`;
}

/** `payer (writable, signer)`, a group's accounts as `group.account`. */
function idlAccounts(accounts: IdlAccount[] | undefined, prefix = ''): string[] {
  return (accounts ?? []).flatMap((a) => {
    const name = `${prefix}${a.name ?? '?'}`;
    if (a.accounts) return idlAccounts(a.accounts, `${name}.`);
    const flags = [a.writable || a.isMut ? 'writable' : '', a.signer || a.isSigner ? 'signer' : ''].filter(Boolean);
    return [flags.length > 0 ? `${name} (${flags.join(', ')})` : name];
  });
}

function IdlTables(props: { idl: unknown }) {
  const instructions: IdlInstruction[] =
    props.idl && typeof props.idl === 'object' && Array.isArray((props.idl as { instructions?: unknown }).instructions)
      ? (props.idl as { instructions: IdlInstruction[] }).instructions
      : [];
  return (
    <>
      {instructions.length === 0 ? (
        <p>No instructions.</p>
      ) : (
        <Table caption="Instructions" head={['Name', 'Accounts', 'Arguments']}>
            {instructions.map((ins, i) => (
              <tr key={i}>
                <th scope="row">
                  <code>{ins.name}</code>
                </th>
                <td>
                  <ul class="parameters">
                    {idlAccounts(ins.accounts).map((a, j) => (
                      <li key={j}>{a}</li>
                    ))}
                  </ul>
                </td>
                <td>
                  {(ins.args ?? []).length === 0 ? (
                    <span class="muted">none</span>
                  ) : (
                    <ul class="parameters">
                      {(ins.args ?? []).map((a, j) => (
                        <li key={j}>
                          <code>
                            {a.name}: {idlType(a.type)}
                          </code>
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </Table>
      )}
    </>
  );
}
