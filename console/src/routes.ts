// The console's views: each is a path under /console/, a title for the navigation, and a component
// given the signed-in API and the URL segments after its own. One line per view.
import type { JSX } from 'preact';
import type { Api } from './api.ts';
import { ActivitiesView } from './views/activities.tsx';
import { PasskeyView } from './views/passkey.tsx';
import { PoliciesView } from './views/policies.tsx';
import { UsersView } from './views/users.tsx';
import { SubOrganizationsView } from './views/subOrganizations.tsx';
import { ContractsView } from './views/contracts.tsx';
import { RootQuorumView } from './views/rootQuorum.tsx';
import { TryTransactionView } from './views/tryTransaction.tsx';
import { WalletsView } from './views/wallets.tsx';

export { navigate } from './navigation.ts';

export interface ViewProps {
  api: Api;
  path: string[];
}

export interface Route {
  path: string;
  title: string;
  component: (props: ViewProps) => JSX.Element;
  /** Left out of the navigation bar (reached from elsewhere). */
  hidden?: boolean;
}

export const ROUTES: Route[] = [
  { path: 'activities', title: 'Activities', component: ActivitiesView },
  { path: 'wallets', title: 'Wallets', component: WalletsView },
  { path: 'policies', title: 'Policies', component: PoliciesView },
  { path: 'try-transaction', title: 'Try a transaction', component: TryTransactionView },
  { path: 'users', title: 'Users', component: UsersView },
  { path: 'sub-organizations', title: 'Sub-organizations', component: SubOrganizationsView },
  { path: 'contracts', title: 'Smart contracts', component: ContractsView },
  { path: 'root-quorum', title: 'Root quorum', component: RootQuorumView },
  { path: 'passkey', title: 'Add a passkey', component: PasskeyView, hidden: true },
];

/** The landing view after sign-in, and of /console itself. */
export const HOME = 'activities';
