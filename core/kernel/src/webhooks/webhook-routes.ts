import type { ApiOperation } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** Webhooks at repository, organization, user and system level. */
export function webhookOperations(_deps: KernelServices): ApiOperation[] {
  return [];
}
