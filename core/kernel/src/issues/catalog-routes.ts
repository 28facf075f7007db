import type { ApiOperation } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** Organization labels, label templates, milestone interchange, cross-repository issue search. */
export function issueCatalogOperations(_deps: KernelServices): ApiOperation[] {
  return [];
}
