import type { ApiOperation } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** Assignees, pins, locking, subscriptions, dependencies, reactions, timeline, comment attachments. */
export function issueInteractionOperations(_deps: KernelServices): ApiOperation[] {
  return [];
}
