import type { ApiOperation } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** Placeholder: the wiki API. */
export function wikiOperations(_deps: KernelServices): ApiOperation[] {
  return [];
}
