import type { Knex } from 'knex';
import { isUniqueViolation, nowUnix, type KernelHooks, type PluginMigration } from '@hearth/plugin-api';

/**
 * Who follows whom (Gitea's `follow` table): one row per (follower `user_id`, followed
 * `follow_id`). `users.num_followers` and `users.num_following` are kept equal to the rows, as
 * Gitea keeps them, so the User JSON's `followers_count` / `following_count` need no query.
 */
export const followMigrations: PluginMigration[] = [
  {
    name: '0020_follow',
    async up(db: Knex) {
      await db.schema.createTable('follow', (t) => {
        t.increments('id').primary();
        t.integer('user_id').notNullable();
        t.integer('follow_id').notNullable().index();
        t.bigInteger('created_unix').notNullable().index();
        t.unique(['user_id', 'follow_id']);
      });
      await db.schema.alterTable('users', (t) => {
        t.integer('num_followers').notNullable().defaultTo(0);
        t.integer('num_following').notNullable().defaultTo(0);
      });
    },
    async down(db: Knex) {
      await db.schema.alterTable('users', (t) => {
        t.dropColumn('num_following');
        t.dropColumn('num_followers');
      });
      await db.schema.dropTable('follow');
    },
  },
];

/** Follow or unfollow (idempotent); following oneself is silently nothing, as in Gitea (FollowUser returns nil). */
export async function setFollowing(db: Knex, userId: number, followId: number, following: boolean): Promise<void> {
  if (userId === followId) return;
  if (following) {
    try {
      await db('follow').insert({ user_id: userId, follow_id: followId, created_unix: nowUnix() });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  } else {
    await db('follow').where({ user_id: userId, follow_id: followId }).delete();
  }
  await recountFollows(db, [userId, followId]);
}

export async function isFollowing(db: Knex, userId: number, followId: number): Promise<boolean> {
  return (await db('follow').where({ user_id: userId, follow_id: followId }).first('id')) !== undefined;
}

/** Set both counts of these users from the rows (a recount is right whatever ran concurrently). */
async function recountFollows(db: Knex | Knex.Transaction, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await db('users')
    .whereIn('id', ids)
    .update({
      num_followers: db('follow').count('*').where('follow.follow_id', db.ref('users.id')),
      num_following: db('follow').count('*').where('follow.user_id', db.ref('users.id')),
    });
}

/** A deleted user follows and is followed by no one any more; the others' counts follow. */
export function tapFollowCleanup(hooks: KernelHooks): void {
  hooks.user.deleting.tapPromise('hearth:follows', async ({ user, trx }) => {
    const rows: Array<{ user_id: number; follow_id: number }> = await trx('follow')
      .where('user_id', user.id)
      .orWhere('follow_id', user.id)
      .select('user_id', 'follow_id');
    if (!rows.length) return;
    await trx('follow').where('user_id', user.id).orWhere('follow_id', user.id).delete();
    const others = [...new Set(rows.flatMap((r) => [Number(r.user_id), Number(r.follow_id)]))].filter((id) => id !== user.id);
    await recountFollows(trx, others);
  });
}
