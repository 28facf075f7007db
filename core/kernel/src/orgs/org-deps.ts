import type { KernelServices } from '../kernel-services';

/** What the organizations module is built from. */
export type OrgDeps = KernelServices;
