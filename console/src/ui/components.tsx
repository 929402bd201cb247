// Small shared pieces of the console's pages: labelled fields, an error box that shows the server's
// message, tables (a list of cards on a phone), status badges, JSON blocks, plurals.
import { cloneElement, toChildArray, type ComponentChildren, type JSX, type VNode } from 'preact';
import { ApiError } from '../api.ts';

let nextId = 0;
/** A stable, unique id for a label's `for`. */
export function fieldId(name: string): string {
  return `field-${name}-${++nextId}`;
}

export function Field(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: string;
  multiline?: boolean;
  placeholder?: string;
  hint?: ComponentChildren;
  autoComplete?: string;
}) {
  const common = {
    id: props.id,
    value: props.value,
    placeholder: props.placeholder,
    spellcheck: false,
    autoComplete: props.autoComplete ?? 'off',
    onInput: (event: JSX.TargetedEvent<HTMLInputElement | HTMLTextAreaElement>) => props.onInput(event.currentTarget.value),
  };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.multiline ? <textarea rows={4} {...common} /> : <input type={props.type ?? 'text'} {...common} />}
      {props.hint && <small class="hint">{props.hint}</small>}
    </div>
  );
}

/** What went wrong, in the server's words when it answered. */
export function ErrorBox(props: { error: unknown }) {
  if (!props.error) return null;
  const error = props.error as Error;
  const status = error instanceof ApiError && error.status ? ` (${error.status}${error.reason ? ` ${error.reason}` : ''})` : '';
  return (
    <p class="error" role="alert">
      {error.message || String(error)}
      {status}
    </p>
  );
}

export function Button(props: { onClick?: () => void; type?: 'button' | 'submit'; kind?: 'primary' | 'danger' | 'plain'; disabled?: boolean; children: ComponentChildren; label?: string }) {
  return (
    <button type={props.type ?? 'button'} class={`button ${props.kind ?? 'plain'}`} onClick={props.onClick} disabled={props.disabled} aria-label={props.label}>
      {props.children}
    </button>
  );
}

/**
 * A table in a box of its own width. On a narrow screen (console.css) it is a list of cards, one per
 * row: the row's header cell (`<th scope="row">`) is the card's title, the columns named in `first`
 * come right under it, the others after, each cell labelled with its column's title. The rows are
 * `<tr>` elements whose cells are their direct children, one per column of `head`, in its order.
 */
export function Table(props: { caption?: string; head: string[]; first?: string[]; children: ComponentChildren }) {
  const { head, first = [] } = props;
  const rows = toChildArray(props.children).map((row) =>
    typeof row === 'object' && row.type === 'tr'
      ? cloneElement(
          row as VNode<{ children?: ComponentChildren }>,
          {},
          toChildArray((row.props as { children?: ComponentChildren }).children).map((cell, i) => {
            const title = head[i];
            if (typeof cell !== 'object' || title === undefined) return cell;
            const given = (cell.props as { class?: string }).class;
            const classes = [given, first.includes(title) ? 'first' : ''].filter(Boolean).join(' ');
            return cloneElement(cell, { 'data-label': title, ...(classes ? { class: classes } : {}) });
          }),
        )
      : row,
  );
  return (
    <div class="table-box" tabIndex={0} role="region" aria-label={props.caption ?? 'table'}>
      <table>
        {props.caption && <caption>{props.caption}</caption>}
        <thead>
          <tr>
            {head.map((title) => (
              <th scope="col" key={title}>
                {title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{rows}</tbody>
      </table>
    </div>
  );
}

/** "1 passkey", "2 passkeys". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const STATUS_WORDS: Record<string, string> = {
  ACTIVITY_STATUS_COMPLETED: 'Completed',
  ACTIVITY_STATUS_CONSENSUS_NEEDED: 'Waiting for approval',
  ACTIVITY_STATUS_FAILED: 'Failed',
  ACTIVITY_STATUS_REJECTED: 'Rejected',
  ACTIVITY_STATUS_PENDING: 'Pending',
  ACTIVITY_STATUS_CREATED: 'Created',
};

export function Status(props: { status: string }) {
  const word = STATUS_WORDS[props.status] ?? props.status.replace(/^ACTIVITY_STATUS_/, '');
  return <span class={`status status-${props.status.replace(/^ACTIVITY_STATUS_/, '').toLowerCase()}`}>{word}</span>;
}

/** A value as indented JSON in a block that wraps. */
export function Json(props: { value: unknown; label: string }) {
  return (
    <pre class="json" aria-label={props.label}>
      {JSON.stringify(props.value, null, 2)}
    </pre>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {props.what}…
    </p>
  );
}

/** An ISO time (or what the API sent) as the reader's local time. */
export function Time(props: { value: unknown }) {
  const text = typeof props.value === 'string' ? props.value : '';
  const date = new Date(text);
  if (!text || Number.isNaN(date.getTime())) return <span>{text || '—'}</span>;
  return <time dateTime={text}>{date.toLocaleString()}</time>;
}
