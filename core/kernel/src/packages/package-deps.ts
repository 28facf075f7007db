import type { Request } from 'express';
import type { Logger, Principal } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';

/** What the package registry framework is built from. */
export interface PackageDeps extends KernelServices {
  log: Logger;
  authenticate(req: Request): Promise<Principal | null>;
}
