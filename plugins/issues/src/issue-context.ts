import {
  ApiError,
  ID_PARAM,
  ownerRepoParams,
  type ApiRequest,
  type JsonSchema,
  type PluginContext,
  type Principal,
  type RepositoryInfo,
  type RepositoryTarget,
  type UnitLevel,
} from '@hearth/plugin-api';
import type { Knex } from 'knex';
import type { PullRequestLink } from './service';
import { toComment, toIssue, toLabel, type IssueRow, type LabelRow } from './issue-store';
import { issueJsonViews, issuePartViews } from './issue-views';

export type RepoParams = { owner: string; repo: string };

/**
 * The plugin context with what the issues feature's parts share: the pull requests feature's link
 * (set when a plugin that owns pull requests registers it).
 */
export type IssueDeps = PluginContext & { pulls: { link: PullRequestLink | null } };

/**
 * What a handler asks beyond its declared access (read, write or admin on the issues unit, checked
 * by the router): `participate` also needs a signed-in caller and a repository that is not
 * archived (open issues, comment, react, edit one's own).
 */
export type IssueNeed = 'read' | 'participate';

export interface OpenedRepo {
  r: RepositoryTarget;
  level: UnitLevel;
  /** Write access to the issues unit of a repository that is not archived. */
  canWrite: boolean;
  isAdmin: boolean;
}

export const INDEX_PARAMS: JsonSchema = ownerRepoParams({ index: { ...ID_PARAM, description: 'index of the issue' } });
export const ID_PARAMS: JsonSchema = ownerRepoParams({ id: { ...ID_PARAM, description: 'id of the item' } });
export const INDEX_ID_PARAMS: JsonSchema = {
  type: 'object',
  properties: { ...(INDEX_PARAMS.properties as object), id: { ...ID_PARAM, description: 'id of the label' } },
  required: ['owner', 'repo', 'index', 'id'],
};
/** The `since`/`before` filters of issue and comment lists. */
export const TIME_RANGE = {
  since: {
    type: 'string',
    maxLength: 64,
    description: 'Only show items updated after the given time. This is a timestamp in RFC 3339 format',
  },
  before: {
    type: 'string',
    maxLength: 64,
    description: 'Only show items updated before the given time. This is a timestamp in RFC 3339 format',
  },
};
export const list = (ref: string) => ({ description: `${ref}List`, schema: { type: 'array', items: { $ref: ref } } });

/** The repository an operation's `{ repo }` declaration resolved. */
export const repoOf = (req: ApiRequest<any, any, any>): RepositoryTarget => req.target.repository!;

/** Opening the repository of a request with the caller's level on its issues unit, and finding its issues and labels. */
function issueLookups(deps: IssueDeps) {
  const { db } = deps;

  /** A resolved repository with the caller's level on its issues unit (per-object checks: the poster or a writer, …). */
  const withLevel = async (r: RepositoryTarget, principal: Principal | null): Promise<OpenedRepo> => {
    const level = await deps.access.unitLevel(r, principal, 'issues');
    const canWrite = (level === 'write' || level === 'admin') && !r.isArchived;
    return { r, level, canWrite, isAdmin: level === 'admin' };
  };

  /** The repository the route's `{ repo }` declaration resolved (the issues unit readable at least). */
  const open = async (req: ApiRequest<any, any, RepoParams>, need: IssueNeed = 'read'): Promise<OpenedRepo> => {
    const r = repoOf(req);
    if (need === 'participate') {
      if (!req.principal) throw ApiError.unauthorized();
      if (r.isArchived) throw ApiError.forbidden('repository is archived');
    }
    return withLevel(r, req.principal);
  };

  /** Another repository named by a request (a dependency's owner/repo), when the caller may read its issues (else 404). */
  const openOther = async (owner: string, repo: string, principal: Principal | null): Promise<OpenedRepo> =>
    withLevel(await deps.access.repository(owner, repo, principal, 'read', 'issues'), principal);

  const issueByIndex = async (r: RepositoryInfo, index: number, q: Knex | Knex.Transaction = db): Promise<IssueRow> => {
    const row = await q('issue').where({ repo_id: r.id, index }).first();
    if (!row) throw ApiError.notFound(`issue does not exist [repo: ${r.id}, index: ${index}]`);
    return toIssue(row);
  };

  const labelById = async (r: RepositoryInfo, id: number): Promise<LabelRow> => {
    const row = await db('label').where({ repo_id: r.id, id }).first();
    if (!row) throw ApiError.notFound(`label does not exist [id: ${id}]`);
    return toLabel(row);
  };

  return { open, openOther, issueByIndex, labelById };
}

export function issueContext(deps: IssueDeps) {
  const { open, openOther, issueByIndex, labelById } = issueLookups(deps);
  const parts = issuePartViews(deps);
  const { repoUrls, labelJson, labelsOf, milestoneJsons, userJsons, assigneeIdsOf } = parts;
  const { issueJsons, commentJsons } = issueJsonViews(deps, parts);
  return {
    open,
    openOther,
    repoUrls,
    issueByIndex,
    labelById,
    labelJson,
    labelsOf,
    milestoneJsons,
    issueJsons,
    commentJsons,
    toComment,
    userJsons,
    assigneeIdsOf,
  };
}

export type IssueContext = ReturnType<typeof issueContext>;
