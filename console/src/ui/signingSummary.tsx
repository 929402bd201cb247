// What a signing activity signs, in words: the summary get_activity answers beside the activity
// (its one line, then the lines src/readable lays out, as the approval email shows them). Text only:
// Preact escapes every value, so nothing a decoded string holds becomes markup.
import { Fragment } from 'preact';
import { isReadableSummary, summaryLines } from '../../../src/readable/summaryLines.ts';

export function SigningSummary(props: { summary: unknown }) {
  const { summary } = props;
  // A value that is not a summary (from another version) is not shown, never guessed at.
  if (!isReadableSummary(summary)) return null;
  return (
    <section class="card signing-summary" aria-labelledby="signing-summary-heading">
      <h2 id="signing-summary-heading">What it signs</h2>
      <p class="summary-text">{summary.text}</p>
      <dl class="facts">
        {summaryLines(summary).map((line, index) => (
          <Fragment key={index}>
            <dt>{line.label}</dt>
            <dd>{line.value}</dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}
