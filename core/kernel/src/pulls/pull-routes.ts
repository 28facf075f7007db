import type { ApiOperation } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** Pull requests, reviews and requested reviewers. */
export function pullOperations(_deps: KernelServices): ApiOperation[] {
  return [];
}
