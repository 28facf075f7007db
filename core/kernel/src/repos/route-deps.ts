import type { HttpHelpers, KernelHooks, OperationAccess } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import type { UserService } from '../users/user-service';
import type { RepoService } from './repo-service';

/** What the repository API modules (git data, contents, statuses, notes, archives) are built from. */
export interface GitRouteDeps {
  repos: RepoService;
  users: UserService;
  http: HttpHelpers;
  config: HearthConfig;
  /** For `repository.media` (the media route); absent where no module needs hooks. */
  hooks?: KernelHooks;
}

/** The access of those modules' operations: all of them belong to the code unit. */
export const READ_CODE: OperationAccess = { repo: { need: 'read', unit: 'code' } };
export const WRITE_CODE: OperationAccess = { repo: { need: 'write', unit: 'code' } };
