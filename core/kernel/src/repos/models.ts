import { BaseRow } from '../users/models';

/** The units a repository can switch on and off (Gitea's names in the API: has_<unit>). */
export const REPO_UNITS = ['code', 'issues', 'pulls', 'releases', 'wiki', 'projects', 'packages', 'actions'] as const;
export type RepoUnit = (typeof REPO_UNITS)[number];
export type RepoUnits = Record<RepoUnit, boolean>;

/** Merge and pull-request settings of a repository (Gitea's field names). */
export interface RepoSettings {
  allow_merge_commits: boolean;
  allow_rebase: boolean;
  allow_rebase_explicit: boolean;
  allow_squash_merge: boolean;
  allow_fast_forward_only_merge: boolean;
  allow_manual_merge: boolean;
  autodetect_manual_merge: boolean;
  allow_rebase_update: boolean;
  default_delete_branch_after_merge: boolean;
  default_merge_style: string;
  default_allow_maintainer_edit: boolean;
  ignore_whitespace_conflicts: boolean;
}

export const DEFAULT_REPO_SETTINGS: RepoSettings = {
  allow_merge_commits: true,
  allow_rebase: true,
  allow_rebase_explicit: true,
  allow_squash_merge: true,
  allow_fast_forward_only_merge: true,
  allow_manual_merge: false,
  autodetect_manual_merge: false,
  allow_rebase_update: true,
  default_delete_branch_after_merge: false,
  default_merge_style: 'merge',
  default_allow_maintainer_edit: false,
  ignore_whitespace_conflicts: false,
};

/** Gitea's repository status: ready, or waiting for the recipient of a transfer to answer. */
export const REPO_STATUS = { ready: 0, pendingTransfer: 2 } as const;

export class RepositoryRow extends BaseRow {
  static override tableName = 'repositories';
  static override booleanColumns = ['is_private', 'is_empty', 'is_archived', 'is_template', 'is_fork'];
  id!: number;
  owner_id!: number;
  owner_name!: string;
  lower_name!: string;
  name!: string;
  description!: string;
  website!: string;
  default_branch!: string;
  is_private!: boolean;
  is_empty!: boolean;
  is_archived!: boolean;
  is_template!: boolean;
  is_fork!: boolean;
  fork_id!: number;
  template_id!: number;
  num_forks!: number;
  num_stars!: number;
  num_watches!: number;
  size!: number;
  units!: string;
  settings!: string;
  created_unix!: number;
  updated_unix!: number;
  archived_unix!: number;
  status!: number;

  unitMap(): RepoUnits {
    return { ...Object.fromEntries(REPO_UNITS.map((u) => [u, true])), ...JSON.parse(this.units) } as RepoUnits;
  }

  settingMap(): RepoSettings {
    return { ...DEFAULT_REPO_SETTINGS, ...JSON.parse(this.settings) };
  }
}
