import type { Knex } from 'knex';
import type { HttpHelpers, KernelHooks } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import type { UserService } from '../users/user-service';
import type { RepoService } from '../repos/repo-service';

/** What the organizations module is built from. */
export interface OrgDeps {
  db: Knex;
  hooks: KernelHooks;
  config: HearthConfig;
  users: UserService;
  repos: RepoService;
  http: HttpHelpers;
}
