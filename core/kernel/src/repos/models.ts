import type { RepositoryInfo, RepositorySettings } from '@hearth/plugin-api';
import { BaseRow } from '../users/models';

/** The units a repository can switch on and off (Gitea's names in the API: has_<unit>). */
export const REPO_UNITS = ['code', 'issues', 'pulls', 'releases', 'wiki', 'projects', 'packages', 'actions'] as const;
export type RepoUnit = (typeof REPO_UNITS)[number];
export type RepoUnits = Record<RepoUnit, boolean>;

/** Merge and pull-request settings of a repository (Gitea's field names). */
export type RepoSettings = RepositorySettings;

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

  /** The plain data the plugin API hands out (`gitDir` from RepoService.gitDir). */
  toInfo(gitDir: string): RepositoryInfo {
    return {
      id: this.id,
      ownerId: this.owner_id,
      ownerName: this.owner_name,
      name: this.name,
      lowerName: this.lower_name,
      description: this.description,
      defaultBranch: this.default_branch,
      isPrivate: Boolean(this.is_private),
      isArchived: Boolean(this.is_archived),
      isEmpty: Boolean(this.is_empty),
      isFork: Boolean(this.is_fork),
      forkId: this.fork_id,
      isTemplate: Boolean(this.is_template),
      units: this.unitMap(),
      settings: this.settingMap(),
      gitDir,
      createdUnix: Number(this.created_unix),
      updatedUnix: Number(this.updated_unix),
    };
  }
}
