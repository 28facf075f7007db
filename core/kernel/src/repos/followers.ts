import type { Knex } from 'knex';
import { isUniqueViolation, nowUnix, toNumber, type ApiRequest, type HttpHelpers, type KernelHooks } from '@hearth/plugin-api';
import type { UserService } from '../users/user-service';
import { whereReadable } from '../access/readable-repos';
import type { RepositoryRow } from './models';
import type { RepoService } from './repo-service';

/**
 * Who follows a repository, as the core keeps it (Gitea's `watch` and `star` tables, created by
 * `0015_notifications`): `watch` has one row per (user, repository) watched (`mode` 1 normal, 3
 * auto watch), `star` one per (user, repository) starred; `repositories.num_watches` and
 * `num_stars` are kept equal to the number of rows. The routes are in watches.ts and stars.ts.
 */

/** Watch or unwatch a repository (idempotent) and keep its watcher count. */
export async function watchRepo(db: Knex, userId: number, repoId: number, watching: boolean): Promise<void> {
  if (watching) {
    const now = nowUnix();
    try {
      await db('watch').insert({ user_id: userId, repo_id: repoId, mode: 1, created_unix: now, updated_unix: now });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  } else {
    await db('watch').where({ user_id: userId, repo_id: repoId }).delete();
  }
  await recount(db, [repoId], []);
}

/** Star or unstar a repository (idempotent) and keep its star count. */
export async function starRepo(db: Knex, userId: number, repoId: number, starring: boolean): Promise<void> {
  if (starring) {
    try {
      await db('star').insert({ uid: userId, repo_id: repoId, created_unix: nowUnix() });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  } else {
    await db('star').where({ uid: userId, repo_id: repoId }).delete();
  }
  await recount(db, [], [repoId]);
}

/** Set num_watches / num_stars from the rows (a recount is right whatever ran concurrently). */
async function recount(db: Knex | Knex.Transaction, watched: number[], starred: number[]): Promise<void> {
  if (watched.length) {
    await db('repositories')
      .whereIn('id', watched)
      .update({ num_watches: db('watch').count('*').where('watch.repo_id', db.ref('repositories.id')) });
  }
  if (starred.length) {
    await db('repositories')
      .whereIn('id', starred)
      .update({ num_stars: db('star').count('*').where('star.repo_id', db.ref('repositories.id')) });
  }
}

/** The users watching a repository (normal and auto watches), in watch order. */
export async function watcherIds(db: Knex, repoId: number): Promise<number[]> {
  return (await db('watch').where('repo_id', repoId).whereIn('mode', [1, 3]).orderBy('id').select('user_id')).map(
    (r: { user_id: unknown }) => toNumber(r.user_id),
  );
}

/** The repositories a user watches. */
export async function watchedBy(db: Knex, userId: number): Promise<number[]> {
  return (await db('watch').where('user_id', userId).orderBy('id').select('repo_id')).map((r: { repo_id: unknown }) => toNumber(r.repo_id));
}

/**
 * The core's part of the repository and account lifecycle for followers: creators watch their new
 * repositories; a deleted repository's watches and stars go; a deleted user's watches and stars go
 * (and those of the repositories they own), the counts of what they followed are recounted.
 */
export function tapFollowers(hooks: KernelHooks, db: Knex): void {
  hooks.repository.created.tapPromise('hearth:watch', async (e) => {
    const creator = e.actor && e.actor.type === 0 ? e.actor.id : null;
    if (creator) await watchRepo(db, creator, e.repositoryId, true);
  });
  hooks.repository.deleted.tapPromise('hearth:watch', async (e) => {
    await db.transaction(async (trx) => {
      await trx('watch').where('repo_id', e.repositoryId).delete();
      await trx('star').where('repo_id', e.repositoryId).delete();
    });
  });
  // Before the repositories' own tap (stage -100), so the purged repositories' rows can still be found.
  hooks.user.deleting.tapPromise({ name: 'hearth:watch', stage: -200 }, async ({ user, trx }) => {
    const owned = trx('repositories').where('owner_id', user.id).select('id');
    const watched = (await trx('watch').where('user_id', user.id).select('repo_id')).map((r: { repo_id: number }) => toNumber(r.repo_id));
    const starred = (await trx('star').where('uid', user.id).select('repo_id')).map((r: { repo_id: number }) => toNumber(r.repo_id));
    await trx('watch').where('user_id', user.id).orWhereIn('repo_id', owned.clone()).delete();
    await trx('star').where('uid', user.id).orWhereIn('repo_id', owned.clone()).delete();
    await recount(trx, watched, starred);
  });
}

export interface FollowerListDeps {
  db: Knex;
  repos: RepoService;
  users: UserService;
  http: HttpHelpers;
}

/** Pages of followed repositories and of followers, shared by the watch and star routes. */
export function followerLists({ db, repos, users, http }: FollowerListDeps) {
  /** A page of the repositories a user follows (`table` watch or star) that the caller may read, newest first. */
  const repoPage = async (req: ApiRequest<any, any, any>, table: 'watch' | 'star', userColumn: string, userId: number) => {
    const q = db(`${table} as w`).join('repositories as r', 'r.id', 'w.repo_id').where(`w.${userColumn}`, userId);
    whereReadable(db, q, 'w.repo_id', req.principal);
    const [rows, counted] = await Promise.all([
      q.clone().select('w.repo_id').orderBy('w.id', 'desc').offset(req.paging.offset).limit(req.paging.limit),
      q.clone().count({ n: '*' }),
    ]);
    const page: RepositoryRow[] = [];
    for (const r of rows as Array<{ repo_id: number }>) {
      const repo = await repos.byId(toNumber(r.repo_id));
      if (repo && (await users.byId(repo.owner_id))) page.push(repo);
    }
    return http.paged(req as ApiRequest, await repos.toApiPage(page, req.principal), toNumber((counted as any[])[0]?.n));
  };

  /** A page of a repository's followers (`table` watch or star), in follow order. */
  const userPage = async (req: ApiRequest<any, any, any>, table: 'watch' | 'star', userColumn: string, repoId: number) => {
    const q = db(`${table} as w`).join('users as u', 'u.id', `w.${userColumn}`).where('w.repo_id', repoId);
    const [rows, counted] = await Promise.all([
      q.clone().select(`w.${userColumn} as uid`).orderBy('w.id', 'asc').offset(req.paging.offset).limit(req.paging.limit),
      q.clone().count({ n: '*' }),
    ]);
    const items = [];
    for (const r of rows) {
      const u = await users.byId(toNumber(r.uid));
      if (u) items.push(users.toApi(u, req.principal));
    }
    return http.paged(req as ApiRequest, items, toNumber((counted as any[])[0]?.n));
  };

  return { repoPage, userPage };
}

export const USERNAME_PARAMS = {
  type: 'object',
  properties: { username: { type: 'string', maxLength: 255, description: 'username of user' } },
  required: ['username'],
};
export const list = (ref: string) => ({ description: `${ref}List`, schema: { type: 'array', items: { $ref: ref } } });
