import { ApiError, isUniqueViolation, nowUnix, type ApiRequest } from '@hearth/plugin-api';
import type { IssueContext, IssueDeps, OpenedRepo } from './issue-context';
import type { IssueRow } from './issue-store';
import { recordIssueEvent } from './timeline';
import { issuesAnywhere, type IndexParams } from './interaction-common';

export interface IssueMeta {
  index: number;
  owner?: string;
  repo?: string;
}

/** Issue dependencies' lookups, lists and changes (the dependency routes' logic). */
export function dependencyService(deps: IssueDeps, ctx: IssueContext) {
  const { db, http } = deps;

  /** The issue an IssueMeta names (owner/repo default to the URL's repository), with the caller's access to it. */
  const metaIssue = async (req: ApiRequest<IssueMeta, unknown, IndexParams>): Promise<{ o: OpenedRepo; issue: IssueRow }> => {
    const owner = req.body.owner?.trim() || req.params.owner;
    const repo = req.body.repo?.trim() || req.params.repo;
    const o = await ctx.openOther(owner, repo, req.principal);
    return { o, issue: await ctx.issueByIndex(o.r, req.body.index) };
  };

  /** The issues on the other side of the URL issue's dependencies: `blockers` (it depends on them) or `blocked` (they depend on it). */
  const listSide = async (req: ApiRequest<unknown, unknown, IndexParams>, side: 'blockers' | 'blocked') => {
    const o = await ctx.open(req);
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    const [mine, other] = side === 'blockers' ? ['issue_id', 'dependency_id'] : ['dependency_id', 'issue_id'];
    const q = db('issue_dependency').where(mine, issue.id);
    const [{ n }] = await q.clone().count({ n: '*' });
    const ids = (await q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit).select(other)).map(
      (r: Record<string, unknown>) => Number(r[other]),
    );
    const json = await issuesAnywhere(deps, ctx, ids, req.principal, o.r);
    return http.paged(
      req as ApiRequest<any, any, any>,
      ids.filter((id) => json.has(id)).map((id) => json.get(id)),
      Number(n),
    );
  };

  /**
   * Make `target` depend on `dependency` (or remove that): write access to the target's issues,
   * read access to the dependency's; no self-dependency, no duplicate, no direct cycle. Records an
   * add/remove_dependency event on both issues.
   */
  const change = async (
    req: ApiRequest<any, any, any>,
    target: { o: OpenedRepo; issue: IssueRow },
    dependency: { o: OpenedRepo; issue: IssueRow },
    add: boolean,
  ) => {
    if (!req.principal) throw ApiError.unauthorized();
    if (!target.o.canWrite)
      throw ApiError.forbidden(`you do not have write access to the issues of ${target.o.r.owner.name}/${target.o.r.name}`);
    if (target.issue.id === dependency.issue.id) throw ApiError.unprocessable('an issue cannot depend on itself');
    const actorId = req.principal.user.id;
    await db
      .transaction(async (trx) => {
        const existing = await trx('issue_dependency').where({ issue_id: target.issue.id, dependency_id: dependency.issue.id }).first('id');
        if (add) {
          if (existing) throw ApiError.unprocessable('the dependency already exists');
          if (await trx('issue_dependency').where({ issue_id: dependency.issue.id, dependency_id: target.issue.id }).first('id')) {
            throw ApiError.unprocessable('circular dependency: the other issue already depends on this one');
          }
          await trx('issue_dependency').insert({
            user_id: actorId,
            issue_id: target.issue.id,
            dependency_id: dependency.issue.id,
            created_unix: nowUnix(),
          });
        } else {
          if (!existing) throw ApiError.notFound('the dependency does not exist');
          await trx('issue_dependency').where('id', existing.id).delete();
        }
        const type = add ? 'add_dependency' : 'remove_dependency';
        await recordIssueEvent(trx, {
          repoId: target.issue.repo_id,
          issueId: target.issue.id,
          actorId,
          type,
          dependent_issue_id: dependency.issue.id,
        });
        await recordIssueEvent(trx, {
          repoId: dependency.issue.repo_id,
          issueId: dependency.issue.id,
          actorId,
          type,
          dependent_issue_id: target.issue.id,
        });
      })
      .catch((err: unknown) => {
        if (add && isUniqueViolation(err)) throw ApiError.unprocessable('the dependency already exists');
        throw err;
      });
  };
  const urlIssue = async (req: ApiRequest<any, any, IndexParams>) => {
    const o = await ctx.open(req);
    return { o, issue: await ctx.issueByIndex(o.r, req.params.index) };
  };
  const one = async (side: { o: OpenedRepo; issue: IssueRow }, req: ApiRequest<any, any, any>) =>
    (await ctx.issueJsons(side.o.r, [await ctx.issueByIndex(side.o.r, side.issue.index)], req.principal))[0];

  return { metaIssue, listSide, change, urlIssue, one };
}
