// A policy expression's textarea that shows the server's refusal AT the expression: the message under
// the field, the line of the expression with a caret under the column, and, when the refusal
// arrives, the focus in the textarea with the reported character selected (so the cursor sits where
// the mistake is).
import { useEffect, useRef } from 'preact/hooks';
import { caretExcerpt, expressionPosition, type Violation } from './refusal.ts';

export interface ExpressionFieldProps {
  id: string;
  label: string;
  hint: string;
  value: string;
  onInput(value: string): void;
  /** The server's violation of this field, from the last refusal. */
  violation: Violation | undefined;
  /** Take the focus and select the position when the violation arrives (the first field refused does). */
  focusOnError: boolean;
}

export function ExpressionField(props: ExpressionFieldProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const { violation } = props;
  // The position is within the text that was sent: the refusal is about it until the field is edited.
  const position = violation ? expressionPosition(violation.description, props.value) : undefined;

  useEffect(() => {
    const element = area.current;
    if (!violation || !props.focusOnError || !element) return;
    element.focus();
    if (position) element.setSelectionRange(position.offset, Math.min(position.offset + 1, element.value.length));
    // Only when a new refusal arrives, not on every keystroke after it.
  }, [violation]);

  const hintId = `${props.id}-hint`;
  const errorId = `${props.id}-error`;
  return (
    <div class="field expression-field">
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        ref={area}
        rows={3}
        spellcheck={false}
        autocomplete="off"
        maxLength={4096}
        value={props.value}
        aria-invalid={violation ? 'true' : undefined}
        aria-describedby={violation ? `${errorId} ${hintId}` : hintId}
        onInput={(e) => props.onInput((e.currentTarget as HTMLTextAreaElement).value)}
      />
      <p class="hint" id={hintId}>
        {props.hint}
      </p>
      {violation && (
        <div class="expression-error" id={errorId} role="alert">
          <p class="expression-message">
            {props.label}: {violation.description}
            {position && ` (line ${position.line}, column ${position.column})`}
          </p>
          {position && (
            <pre class="expression-caret" aria-hidden="true">
              <code>{`${caretExcerpt(position).text}\n${caretExcerpt(position).caret}`}</code>
            </pre>
          )}
        </div>
      )}
    </div>
  );
}
