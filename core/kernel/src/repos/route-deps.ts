import type { HttpHelpers } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import type { UserService } from '../users/user-service';
import type { RepoService } from './repo-service';

/** What the repository API modules (git data, contents, statuses, notes, archives) are built from. */
export interface GitRouteDeps {
  repos: RepoService;
  users: UserService;
  http: HttpHelpers;
  config: HearthConfig;
}
