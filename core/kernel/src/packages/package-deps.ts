import type { Knex } from 'knex';
import type { HttpHelpers, KernelHooks, Logger, Principal } from '@hearth/plugin-api';
import type { Request } from 'express';
import type { HearthConfig } from '../config/types';
import type { UserService } from '../users/user-service';
import type { RepoService } from '../repos/repo-service';

/** What the package registry framework is built from. */
export interface PackageDeps {
  db: Knex;
  hooks: KernelHooks;
  config: HearthConfig;
  users: UserService;
  repos: RepoService;
  http: HttpHelpers;
  log: Logger;
  authenticate(req: Request): Promise<Principal | null>;
}
