// Every query Signet answers. Adding one is writing its file and listing it here.
import { getActivity } from './getActivity.ts';
import { listActivities } from './listActivities.ts';
import type { QueryHandler } from './query.ts';
import { getSmartContractInterface, listSmartContractInterfaces } from './smartContractInterfaces.ts';

export const queryHandlers: readonly QueryHandler[] = [
  getActivity,
  listActivities,
  getSmartContractInterface,
  listSmartContractInterfaces,
];
