import type { HttpHelpers, Principal, RepositoryDomain, RepositoryInfo, RepositoryTarget, UserInfo } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import type { RepoService } from '../repos/repo-service';
import type { RepositoryRow } from '../repos/models';
import type { UserRow } from '../users/models';
import type { UserService } from '../users/user-service';
import { repoLinks } from '../repos/links';
import { watchedBy, watcherIds } from '../repos/followers';
import { logCommits, toApiCommits } from '../repos/commit-json';
import { pushedCommits } from '../repos/pushed-commits';

/** Repositories as the plugin API offers them (`ctx.repositories`): plain data over RepoService. */
export function repositoryDomain(repos: RepoService, config: HearthConfig, users: UserService, http: HttpHelpers): RepositoryDomain {
  const db = repos.query().knex();
  const info = (row: RepositoryRow): RepositoryInfo => row.toInfo(repos.gitDir(row.owner_name, row.name));
  const rowOf = async (repository: RepositoryInfo | RepositoryTarget): Promise<RepositoryRow> => {
    const row = await repos.byId(repository.id);
    if (!row) throw new Error(`repository ${repository.id} does not exist`);
    return row;
  };
  const rowsOf = async (ids: readonly number[]): Promise<RepositoryRow[]> =>
    ids.length ? repos.query().whereIn('id', [...new Set(ids)]) : [];
  return {
    byId: async (id) => {
      const row = await repos.byId(id);
      return row ? info(row) : null;
    },
    byIds: async (ids) => new Map((await rowsOf(ids)).map((row) => [row.id, info(row)])),
    byName: async (ownerName, name) => {
      const found = await repos.byOwnerAndName(ownerName, name);
      return found ? info(found) : null;
    },
    gitDir: (ownerName, name) => repos.gitDir(ownerName, name),
    links: (ownerName, name) => {
      const { api, html } = repoLinks(config, ownerName, name);
      return { api, html, clone: `${html}.git` };
    },
    toApi: async (repository, viewer: Principal | null) => {
      const row = await rowOf(repository);
      return repos.toApi(row, await ownerRow(repos, row), viewer);
    },
    toApiPage: async (list, viewer) => repos.toApiPage(await rowsOf(list.map((r) => r.id)).then((rows) => orderAs(list, rows)), viewer),
    updateRef: async (repository, ref, oldId, newId, actor: UserInfo, reason) =>
      repos.updateRef(await rowOf(repository), ref, oldId, newId, actor, reason),
    recordPush: async (repository, updates, actor) => repos.recordPush(await rowOf(repository), updates, actor),
    addCounts: (collect) => repos.addCounts(collect),
    watcherIds: (repositoryId) => watcherIds(db, repositoryId),
    watchedBy: (userId) => watchedBy(db, userId),
    collaboratorIds: async (repositoryId) =>
      (await db('collaborations').where('repo_id', repositoryId).orderBy('id').select('user_id')).map((r: { user_id: unknown }) =>
        Number(r.user_id),
      ),
    branchTips: async (repositoryId, branches) => {
      const out = new Map<string, string>();
      if (branches.length === 0) return out;
      const rows = await db('repo_branches')
        .where('repo_id', repositoryId)
        .whereIn('name', [...new Set(branches)])
        .select('name', 'commit_id');
      for (const row of rows as Array<{ name: string; commit_id: string }>) out.set(row.name, String(row.commit_id));
      return out;
    },
    commitLog: async (repository, args, options, viewer) => {
      const commits = await logCommits(repository.gitDir, args);
      const links = repoLinks(config, repository.ownerName, repository.name);
      return toApiCommits({ users, config, http, repos }, repository.gitDir, links, viewer, commits, options);
    },
    pushedCommits: (event, update) => pushedCommits(event, update, repos.gitDir(event.ownerName, event.name)),
  };
}

async function ownerRow(repos: RepoService, row: RepositoryRow): Promise<UserRow> {
  const owner = await repos.ownerOf(row);
  if (!owner) throw new Error(`the owner of repository ${row.id} does not exist`);
  return owner;
}

function orderAs(list: readonly RepositoryInfo[], rows: RepositoryRow[]): RepositoryRow[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return list.map((r) => byId.get(r.id)).filter((r): r is RepositoryRow => r !== undefined);
}
