import type { ApiOperation } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** Placeholder: issues, comments, labels, milestones. */
export function issueOperations(_deps: KernelServices): ApiOperation[] {
  return [];
}
