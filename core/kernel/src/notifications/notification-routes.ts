import type { ApiOperation } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** Activity feeds and notifications. */
export function notificationOperations(_deps: KernelServices): ApiOperation[] {
  return [];
}
