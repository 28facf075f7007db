import type { Knex } from 'knex';
import { insertId, nowUnix, toBoolean, type PluginMigration } from '@hearth/plugin-api';
import { recordIssueEvent } from './timeline';
import type { IssueRow } from './issue-store';

/**
 * Time tracking (Gitea's `stopwatch` and `tracked_time` tables): a running stopwatch per (user,
 * issue), and the time spent, in seconds. Tracked times are deleted softly (`deleted`), as Gitea
 * does, so the timeline's "- 1 hour" entries keep pointing at something.
 */
export const timeTrackingMigrations: PluginMigration[] = [
  {
    name: '0012_time_tracking',
    async up(db: Knex) {
      await db.schema.createTable('stopwatch', (t) => {
        t.increments('id').primary();
        t.integer('issue_id').notNullable().index();
        t.integer('user_id').notNullable();
        t.bigInteger('created_unix').notNullable();
        t.unique(['user_id', 'issue_id']);
      });
      await db.schema.createTable('tracked_time', (t) => {
        t.increments('id').primary();
        t.integer('issue_id').notNullable().index();
        t.integer('user_id').notNullable().index();
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('time').notNullable();
        t.boolean('deleted').notNullable().defaultTo(false);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('tracked_time');
      await db.schema.dropTable('stopwatch');
    },
  },
];

export interface TrackedTimeRow {
  id: number;
  issue_id: number;
  user_id: number;
  created_unix: number;
  time: number;
  deleted: boolean;
}

export interface StopwatchRow {
  id: number;
  issue_id: number;
  user_id: number;
  created_unix: number;
}

export const toTrackedTime = (raw: any): TrackedTimeRow => ({
  id: Number(raw.id),
  issue_id: Number(raw.issue_id),
  user_id: Number(raw.user_id),
  created_unix: Number(raw.created_unix),
  time: Number(raw.time),
  deleted: toBoolean(raw.deleted),
});

export const toStopwatch = (raw: any): StopwatchRow => ({
  id: Number(raw.id),
  issue_id: Number(raw.issue_id),
  user_id: Number(raw.user_id),
  created_unix: Number(raw.created_unix),
});

/**
 * Gitea 1.20's util.SecToTime: the two largest non-zero-leading units of a duration, in English
 * ("1 hour 2 minutes", "3 days 4 hours"); the timeline's time entries carry it as their content.
 */
export function secToTime(duration: number): string {
  let days = Math.floor(duration / 86400);
  const years = Math.floor(days / 365);
  days -= years * 365;
  const months = Math.floor((days * 12) / 365);
  days -= Math.floor((months * 365) / 12);
  const weeks = Math.floor(days / 7);
  days -= weeks * 7;
  const hours = Math.floor(duration / 3600) % 24;
  const minutes = Math.floor(duration / 60) % 60;
  const seconds = duration % 60;
  const part = (value: number, name: string) => (value === 1 ? `1 ${name}` : value > 1 ? `${value} ${name}s` : '');
  const pair = (a: [number, string], b: [number, string]) => [part(...a), part(...b)].filter(Boolean).join(' ');
  if (years > 0) return pair([years, 'year'], [months, 'month']);
  if (months > 0) return pair([months, 'month'], [weeks, 'week']);
  if (weeks > 0) return pair([weeks, 'week'], [days, 'day']);
  if (days > 0) return pair([days, 'day'], [hours, 'hour']);
  if (hours > 0) return pair([hours, 'hour'], [minutes, 'minute']);
  return pair([minutes, 'minute'], [seconds, 'second']);
}

/** Add spent time to an issue, with its `add_time_manual` timeline entry; returns the new row. */
export async function addTrackedTime(
  trx: Knex.Transaction,
  issue: IssueRow,
  userId: number,
  seconds: number,
  createdUnix: number = nowUnix(),
): Promise<TrackedTimeRow> {
  const id = await insertId(trx, 'tracked_time', {
    issue_id: issue.id,
    user_id: userId,
    created_unix: createdUnix,
    time: seconds,
    deleted: false,
  });
  await recordIssueEvent(trx, {
    repoId: issue.repo_id,
    issueId: issue.id,
    actorId: userId,
    type: 'add_time_manual',
    content: secToTime(seconds),
  });
  return { id, issue_id: issue.id, user_id: userId, created_unix: createdUnix, time: seconds, deleted: false };
}

/** Stop a running stopwatch: its time becomes a tracked time, with a `stop_tracking` timeline entry. */
export async function finishStopwatch(trx: Knex.Transaction, issue: IssueRow, watch: StopwatchRow): Promise<void> {
  const now = nowUnix();
  const seconds = Math.max(0, now - watch.created_unix);
  await insertId(trx, 'tracked_time', { issue_id: issue.id, user_id: watch.user_id, created_unix: now, time: seconds, deleted: false });
  await recordIssueEvent(trx, {
    repoId: issue.repo_id,
    issueId: issue.id,
    actorId: watch.user_id,
    type: 'stop_tracking',
    content: secToTime(seconds),
  });
  await trx('stopwatch').where('id', watch.id).delete();
}

/** Mark tracked times deleted, with one `delete_time_manual` entry ("- <total>") on the issue. */
export async function deleteTrackedTimes(trx: Knex.Transaction, issue: IssueRow, actorId: number, rows: TrackedTimeRow[]): Promise<void> {
  const total = rows.reduce((sum, r) => sum + r.time, 0);
  await trx('tracked_time')
    .whereIn(
      'id',
      rows.map((r) => r.id),
    )
    .update({ deleted: true });
  await recordIssueEvent(trx, {
    repoId: issue.repo_id,
    issueId: issue.id,
    actorId,
    type: 'delete_time_manual',
    content: `- ${secToTime(total)}`,
  });
}
