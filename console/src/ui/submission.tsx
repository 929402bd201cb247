// What became of a submitted activity, said in the page: done at once, waiting for approvals (with a
// link to the activity, where others approve it), failed or rejected, or refused by the server (its
// message and the fields it names). `useSubmission` runs one submission at a time for a form.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Activity } from '../api.ts';
import { messageOf, violationsOf } from './refusal.ts';

export type Outcome =
  | { kind: 'activity'; activity: Activity; done: string }
  | { kind: 'refused'; error: unknown }
  | { kind: 'note'; text: string };

export const CONSENSUS_NEEDED = 'ACTIVITY_STATUS_CONSENSUS_NEEDED';
export const COMPLETED = 'ACTIVITY_STATUS_COMPLETED';

/** The console's page of one activity. */
export const activityHref = (id: string) => `/console/activities/${encodeURIComponent(id)}`;

export interface Submission {
  busy: boolean;
  outcome: Outcome | undefined;
  /** Runs `submit`; the activity it resolves with is the outcome (`done` says what a completed one did). Resolves with it, or undefined when refused. */
  run(submit: () => Promise<Activity>, done: string): Promise<Activity | undefined>;
  /** Shows a note of the page's own (a file that is no JSON…) in the outcome's place. */
  note(text: string): void;
  clear(): void;
}

export function useSubmission(): Submission {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  return {
    busy,
    outcome,
    async run(submit, done) {
      setBusy(true);
      setOutcome(undefined);
      try {
        const activity = await submit();
        setOutcome({ kind: 'activity', activity, done });
        return activity;
      } catch (error) {
        setOutcome({ kind: 'refused', error });
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    note: (text) => setOutcome({ kind: 'note', text }),
    clear: () => setOutcome(undefined),
  };
}

/** True when the activity took effect now. */
export const completed = (activity: Activity | undefined) => activity?.status === COMPLETED;

/** The outcome, in a live region; `fieldsShownElsewhere` are the fields a form shows at their own control. */
export function OutcomeNote(props: { outcome: Outcome | undefined; fieldsShownElsewhere?: string[] }): JSX.Element | null {
  const { outcome } = props;
  if (!outcome) return null;
  if (outcome.kind === 'note') return <p class="outcome error" role="alert">{outcome.text}</p>;
  if (outcome.kind === 'refused') {
    const elsewhere = new Set((props.fieldsShownElsewhere ?? []).map((f) => `parameters.${f}`));
    const violations = violationsOf(outcome.error).filter((v) => !elsewhere.has(v.field));
    const shownAtField = violationsOf(outcome.error).length > violations.length;
    return (
      <div class="outcome error" role="alert">
        <p>
          <strong>Refused:</strong> {shownAtField && violations.length === 0 ? 'the field marked above says why.' : messageOf(outcome.error)}
        </p>
        {violations.length > 1 && (
          <ul>
            {violations.map((v) => (
              <li key={v.field + v.description}>
                <code>{v.field}</code>: {v.description}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  const { activity, done } = outcome;
  const link = <a href={activityHref(activity.id)}>activity {activity.id}</a>;
  let text: ComponentChildren;
  switch (activity.status) {
    case COMPLETED:
      text = <>{done} ({link}).</>;
      break;
    case CONSENSUS_NEEDED:
      text = (
        <>
          <strong>Needs approvals:</strong> nothing has changed yet. It takes effect once enough approvers approve {link}.
        </>
      );
      break;
    default: {
      // FAILED carries the refusal of its effect; REJECTED, and any other, is said by its status.
      const failure = (activity.failure as { message?: unknown } | undefined)?.message;
      text = (
        <>
          {link} is {activity.status.replace('ACTIVITY_STATUS_', '').toLowerCase()}
          {typeof failure === 'string' ? `: ${failure}` : ''}.
        </>
      );
    }
  }
  return (
    <p class={`outcome ${activity.status === COMPLETED ? 'outcome-done' : 'outcome-waiting'}`} role="status">
      {text}
    </p>
  );
}

/** A delete (or revoke) button that asks once more in the page before it acts; the question takes the focus. */
export function ConfirmButton(props: { label: string; question: string; confirmLabel?: string; disabled?: boolean; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="button danger" disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={props.question}>
      <span>{props.question}</span>{' '}
      <button
        type="button"
        class="button danger"
        ref={yes}
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        {props.confirmLabel ?? `Yes, ${props.label.toLowerCase()}`}
      </button>{' '}
      <button type="button" class="button plain" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** What a view reads: still loading, the value, or the error. */
export type Loaded<T> = { state: 'loading' } | { state: 'ready'; value: T } | { state: 'failed'; error: unknown };

/** Reads with `load` when the view shows and again whenever a key changes (bump a counter to read again). */
export function useLoaded<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && setLoaded({ state: 'ready', value }),
      (error) => current && setLoaded({ state: 'failed', error }),
    );
    return () => {
      current = false;
    };
  }, keys);
  return loaded;
}

export function LoadError(props: { what: string; error: unknown }) {
  return (
    <p class="outcome error" role="alert">
      Could not load {props.what}: {messageOf(props.error)}
    </p>
  );
}
