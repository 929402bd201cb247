// Stands for a view that is not part of this build of the console yet.
import type { Api } from '../api.ts';

export function notAvailable(title: string) {
  return function NotAvailableView(_props: { api: Api; path: string[] }) {
    return (
      <section>
        <h1>{title}</h1>
        <p>This view is not available in this version of the console.</p>
      </section>
    );
  };
}
