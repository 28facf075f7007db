import type { Knex } from 'knex';
import type { HttpHelpers, KernelHooks, Logger } from '@hearth/plugin-api';
import type { HearthConfig } from './config/types';
import type { UserService } from './users/user-service';
import type { RepoService } from './repos/repo-service';

/** The kernel's services that its feature areas (organizations, packages, …) are built from. */
export interface KernelServices {
  db: Knex;
  hooks: KernelHooks;
  config: HearthConfig;
  users: UserService;
  repos: RepoService;
  http: HttpHelpers;
  log: Logger;
}
