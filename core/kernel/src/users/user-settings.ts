import type { Knex } from 'knex';
import { ApiError, type PluginMigration } from '@hearth/plugin-api';
import type { EditUserInput } from './user-service';
import type { UserRow } from './models';

/**
 * The settings a user changes for themself (`/user/settings`): most live in `users` since
 * 0001; this adds the ones Gitea keeps beside them. Each column is added only when missing.
 */
export const userSettingsMigrations: PluginMigration[] = [
  {
    name: '0018_user_settings',
    async up(db: Knex) {
      const theme = !(await db.schema.hasColumn('users', 'theme'));
      const diffViewStyle = !(await db.schema.hasColumn('users', 'diff_view_style'));
      const keepActivityPrivate = !(await db.schema.hasColumn('users', 'keep_activity_private'));
      if (!theme && !diffViewStyle && !keepActivityPrivate) return;
      await db.schema.alterTable('users', (t) => {
        if (theme) t.string('theme', 255).notNullable().defaultTo('');
        if (diffViewStyle) t.string('diff_view_style', 255).notNullable().defaultTo('');
        if (keepActivityPrivate) t.boolean('keep_activity_private').notNullable().defaultTo(false);
      });
    },
    async down(db: Knex) {
      await db.schema.alterTable('users', (t) => {
        t.dropColumn('keep_activity_private');
        t.dropColumn('diff_view_style');
        t.dropColumn('theme');
      });
    },
  },
];

/** Gitea's `UserSettings` JSON. */
export interface UserSettingsJson {
  full_name: string;
  website: string;
  description: string;
  location: string;
  language: string;
  theme: string;
  diff_view_style: string;
  hide_email: boolean;
  hide_activity: boolean;
}

/** Gitea's `UserSettingsOptions`, as the schema let it through. */
export type UserSettingsOptions = Partial<UserSettingsJson>;

export function settingsOf(row: UserRow): UserSettingsJson {
  return {
    full_name: row.full_name,
    website: row.website,
    description: row.description,
    location: row.location,
    language: row.language,
    theme: row.theme,
    diff_view_style: row.diff_view_style,
    hide_email: row.keep_email_private,
    hide_activity: row.keep_activity_private,
  };
}

/** Gitea's `ValidSiteUrl`: an absolute http or https URL naming a host, without spaces; or empty. */
export function isSiteUrl(value: string): boolean {
  if (value === '') return true;
  if (!/^https?:\/\/[^\s/?#]/i.test(value) || /[\s\u0000-\u001f\u007f]/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The changes `options` ask for, checked as Gitea checks them (the schema has checked types and lengths). */
export function settingsEdit(options: UserSettingsOptions): EditUserInput {
  if (options.website !== undefined && !isSiteUrl(options.website)) {
    throw ApiError.unprocessable(`website must be an http or https URL, or empty [website: ${options.website}]`);
  }
  return {
    fullName: options.full_name,
    website: options.website,
    description: options.description,
    location: options.location,
    language: options.language,
    theme: options.theme,
    diffViewStyle: options.diff_view_style,
    keepEmailPrivate: options.hide_email,
    keepActivityPrivate: options.hide_activity,
  };
}
