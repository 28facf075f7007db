import type { ApiOperation } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** Push mirrors. */
export function pushMirrorOperations(_deps: KernelServices): ApiOperation[] {
  return [];
}
