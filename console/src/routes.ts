// The console's views: each is a path under /console/, a title for the navigation, and a component
// given the signed-in API and the URL segments after its own. One line per view.
import type { JSX } from 'preact';
import type { Api } from './api.ts';
import { ActivitiesView } from './views/activities.tsx';
import { notAvailable } from './views/notAvailable.tsx';
import { PasskeyView } from './views/passkey.tsx';

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
  { path: 'policies', title: 'Policies', component: notAvailable('Policies') },
  { path: 'users', title: 'Users', component: notAvailable('Users') },
  { path: 'sub-organizations', title: 'Sub-organizations', component: notAvailable('Sub-organizations') },
  { path: 'contracts', title: 'Smart contracts', component: notAvailable('Smart contracts') },
  { path: 'root-quorum', title: 'Root quorum', component: notAvailable('Root quorum') },
  { path: 'passkey', title: 'Add a passkey', component: PasskeyView, hidden: true },
];

/** The landing view after sign-in, and of /console itself. */
export const HOME = 'activities';
