import fs from 'node:fs';
import path from 'node:path';
import { ApiError, ok, type ApiOperation, type ApiRequest, type UserInfo } from '@hearth/plugin-api';
import { nowUnix } from '../users/models';
import type { UserRow } from '../users/models';
import { OWNER_REPO_PARAMS, type RepoRouteDeps } from './repo-routes';
import { REPO_STATUS } from './models';
import type { AttachedGitDirectories } from './attached-git';
import type { RepoService, ResolvedRepo } from './repo-service';
import { repoOf } from '../access/operation-access';

/**
 * Moving a repository to another owner: the directory moves, the row follows. Used directly by a
 * site admin, and on acceptance of a pending transfer.
 */
async function moveRepository(
  repos: RepoService,
  attached: AttachedGitDirectories,
  resolved: ResolvedRepo,
  recipient: UserRow,
  actor: UserInfo | null,
): Promise<void> {
  const { repo } = resolved;
  const db = repos.query().knex();
  const target = repos.gitDir(recipient.name, repo.name);
  const clash = await repos.query().findOne({ owner_id: recipient.id, lower_name: repo.lower_name });
  // A directory a plugin keeps beside repositories (the wiki's <name>.wiki.git) left at the destination takes the name too.
  const besides = attached.suffixes.map((suffix) => repos.gitDir(recipient.name, repo.name + suffix));
  if (clash || fs.existsSync(target) || besides.some((dir) => fs.existsSync(dir)))
    throw ApiError.unprocessable(`repository already exists [${recipient.name}/${repo.name}]`);
  await db.transaction(async (trx) => {
    await trx('repositories')
      .where('id', repo.id)
      .update({ owner_id: recipient.id, owner_name: recipient.name, status: REPO_STATUS.ready, updated_unix: nowUnix() });
    await trx('repo_transfers').where('repo_id', repo.id).delete();
  });
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(resolved.gitDir, target);
  } catch (err) {
    // The files did not move: put the record back where they are.
    await db('repositories').where('id', repo.id).update({ owner_id: repo.owner_id, owner_name: repo.owner_name });
    throw err;
  }
  // Features move what they keep beside the repository (the wiki's <name>.wiki.git).
  await repos.announceTransfer({
    repositoryId: repo.id,
    ownerId: recipient.id,
    ownerName: recipient.name,
    name: repo.name,
    actor,
    oldOwnerId: repo.owner_id,
    oldOwnerName: resolved.owner.name,
  });
}

/** `POST /repos/{owner}/{repo}/transfer`, `/transfer/accept`, `/transfer/reject`. */
export function transferOperations({
  repos,
  users,
  attached,
}: Pick<RepoRouteDeps, 'repos' | 'users'> & { attached: AttachedGitDirectories }): ApiOperation[] {
  const db = () => repos.query().knex();
  const pendingFor = (repoId: number) => db()('repo_transfers').where('repo_id', repoId).first();
  const json = async (resolved: ResolvedRepo, viewer: ApiRequest['principal']) => {
    const repo = (await repos.byId(resolved.repo.id))!;
    return repos.toApi(repo, (await users.byId(repo.owner_id))!, viewer);
  };
  const recipientOnly = async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
    const resolved = await repos.access.resolveRepo(req.params.owner, req.params.repo, req.principal, 'read').catch(async (err) => {
      // The recipient cannot see a private repository yet; a pending transfer to them is enough.
      const owner = await users.byName(req.params.owner);
      const repo = owner ? await repos.query().findOne({ owner_id: owner.id, lower_name: req.params.repo.toLowerCase() }) : undefined;
      const pending = repo ? await pendingFor(repo.id) : undefined;
      if (!owner || !repo || !pending || pending.recipient_id !== req.principal!.user.id) throw err;
      return { repo, owner, permission: { admin: false, push: false, pull: true }, gitDir: repos.gitDir(owner.name, repo.name) };
    });
    const pending = await pendingFor(resolved.repo.id);
    if (!pending) throw ApiError.notFound('no transfer of this repository is pending');
    if (pending.recipient_id !== req.principal!.user.id) throw ApiError.forbidden('only the recipient may answer a transfer');
    return { resolved, pending };
  };

  return [
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/transfer',
      operationId: 'repoTransfer',
      tag: 'repository',
      summary: "Transfer a repo's ownership",
      scopes: ['repository'],
      auth: 'required',
      access: { repo: { need: 'admin' } },
      params: OWNER_REPO_PARAMS,
      body: 'TransferRepoOption',
      bodyRequired: true,
      responses: { 202: 'Repository', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ new_owner: string; team_ids?: number[] }, unknown, { owner: string; repo: string }>) => {
        const resolved = repoOf(req);
        const recipient = await users.byName(req.body.new_owner);
        // As in Gitea, an owner the caller may not see does not exist for them.
        if (!recipient || !(await repos.access.profileVisible(recipient, req.principal)))
          throw ApiError.notFound(`new owner does not exist [name: ${req.body.new_owner}]`);
        if (recipient.id === resolved.owner.id) throw ApiError.unprocessable(`the repository already belongs to ${recipient.name}`);
        if (req.body.team_ids?.length && recipient.type !== 1)
          throw ApiError.unprocessable('teams can only be added to organization-owned repositories');
        const actor: UserInfo = req.principal!.user;
        if (actor.isAdmin || recipient.id === actor.id) {
          await moveRepository(repos, attached, resolved, recipient, actor);
        } else {
          // Someone else's account: the recipient must accept, as in Gitea.
          const clash = await repos.query().findOne({ owner_id: recipient.id, lower_name: resolved.repo.lower_name });
          if (clash) throw ApiError.unprocessable(`repository already exists [${recipient.name}/${resolved.repo.name}]`);
          await db().transaction(async (trx) => {
            await trx('repo_transfers').where('repo_id', resolved.repo.id).delete();
            await trx('repo_transfers').insert({
              repo_id: resolved.repo.id,
              doer_id: actor.id,
              recipient_id: recipient.id,
              created_unix: nowUnix(),
            });
            await trx('repositories').where('id', resolved.repo.id).update({ status: REPO_STATUS.pendingTransfer });
          });
        }
        return { status: 202, body: await json(resolved, req.principal) };
      },
    },
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/transfer/accept',
      operationId: 'acceptRepoTransfer',
      tag: 'repository',
      summary: 'Accept a repo transfer',
      // 'caller', not { repo }: the recipient may not see the repository before accepting (recipientOnly).
      scopes: ['repository'],
      auth: 'required',
      access: 'caller',
      params: OWNER_REPO_PARAMS,
      responses: { 202: 'Repository', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        const { resolved, pending } = await recipientOnly(req);
        await moveRepository(repos, attached, resolved, (await users.byId(pending.recipient_id))!, req.principal!.user);
        return { status: 202, body: await json(resolved, req.principal) };
      },
    },
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/transfer/reject',
      operationId: 'rejectRepoTransfer',
      tag: 'repository',
      summary: 'Reject a repo transfer',
      // 'caller', not { repo }: the recipient may not see the repository before answering (recipientOnly).
      scopes: ['repository'],
      auth: 'required',
      access: 'caller',
      params: OWNER_REPO_PARAMS,
      responses: { 200: 'Repository', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        const { resolved } = await recipientOnly(req);
        await db().transaction(async (trx) => {
          await trx('repo_transfers').where('repo_id', resolved.repo.id).delete();
          await trx('repositories').where('id', resolved.repo.id).update({ status: REPO_STATUS.ready });
        });
        return ok(await json(resolved, req.principal));
      },
    },
  ];
}
