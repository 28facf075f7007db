import { Model } from 'objection';

/**
 * objection models of the kernel's tables. No global `Model.knex()`: every query passes the
 * kernel's knex (or a transaction), so several kernels can share one process (tests, embedding).
 */
/** Base of the kernel's rows: SQLite and MariaDB hand booleans back as 0/1, so declared boolean columns are normalised. */
export class BaseRow extends Model {
  static booleanColumns: readonly string[] = [];

  override $parseDatabaseJson(json: Record<string, any>): Record<string, any> {
    const parsed = super.$parseDatabaseJson(json);
    for (const key of (this.constructor as typeof BaseRow).booleanColumns) if (key in parsed) parsed[key] = Boolean(parsed[key]);
    return parsed;
  }
}

export class UserRow extends BaseRow {
  static override tableName = 'users';
  static override booleanColumns = [
    'keep_email_private',
    'keep_activity_private',
    'must_change_password',
    'is_active',
    'is_admin',
    'is_restricted',
    'prohibit_login',
    'allow_git_hook',
    'allow_import_local',
    'allow_create_organization',
  ];
  id!: number;
  lower_name!: string;
  name!: string;
  full_name!: string;
  email!: string;
  keep_email_private!: boolean;
  passwd!: string;
  must_change_password!: boolean;
  login_type!: number;
  login_source!: number;
  login_name!: string;
  type!: number;
  location!: string;
  website!: string;
  description!: string;
  language!: string;
  theme!: string;
  diff_view_style!: string;
  keep_activity_private!: boolean;
  visibility!: number;
  is_active!: boolean;
  is_admin!: boolean;
  is_restricted!: boolean;
  prohibit_login!: boolean;
  allow_git_hook!: boolean;
  allow_import_local!: boolean;
  allow_create_organization!: boolean;
  max_repo_creation!: number;
  created_unix!: number;
  updated_unix!: number;
  last_login_unix!: number;
  num_followers!: number;
  num_following!: number;
}

export class UserEmailRow extends BaseRow {
  static override tableName = 'user_emails';
  static override booleanColumns = ['is_activated', 'is_primary'];
  id!: number;
  uid!: number;
  email!: string;
  lower_email!: string;
  is_activated!: boolean;
  is_primary!: boolean;
}

export class AccessTokenRow extends BaseRow {
  static override tableName = 'access_tokens';
  id!: number;
  uid!: number;
  name!: string;
  token_hash!: string;
  token_last_eight!: string;
  scope!: string;
  created_unix!: number;
  updated_unix!: number;
}

export const VISIBILITY_NAMES = ['public', 'limited', 'private'] as const;
/** The stored values of VISIBILITY_NAMES. */
export const VISIBILITY = { public: 0, limited: 1, private: 2 } as const;

export { nowUnix, GO_ZERO_TIME, unixToIso } from '@hearth/plugin-api';
