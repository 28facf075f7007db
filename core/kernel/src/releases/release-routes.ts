import type { ApiOperation } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** Placeholder: releases and attachments. */
export function releaseOperations(_deps: KernelServices): ApiOperation[] {
  return [];
}
