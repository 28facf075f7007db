import {
  ApiError,
  created,
  noContent,
  ok,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type OperationAccess,
} from '@hearth/plugin-api';
import { repoOf } from '../access/operation-access';
import type { KernelServices } from '../kernel-services';
import { unixToIso } from '../users/models';
import { readRef } from '../repos/git-data-git';
import { isValidRefName } from '../repos/names';
import { OWNER_REPO_PARAMS } from '../repos/repo-routes';
import type { ResolvedRepo } from '../repos/repo-service';
import {
  deleteRule,
  insertRule,
  isGlobRule,
  listRules,
  ruleByName,
  updateRule,
  type ProtectedBranchRow,
  type RuleFields,
} from './branch-protection-store';

type RepoParams = { owner: string; repo: string };
type NameParams = RepoParams & { name: string };

/** CreateBranchProtectionOption / EditBranchProtectionOption (Gitea 1.20). */
interface ProtectionBody {
  branch_name?: string;
  rule_name?: string;
  enable_push?: boolean;
  enable_push_whitelist?: boolean;
  push_whitelist_usernames?: string[];
  push_whitelist_teams?: string[];
  push_whitelist_deploy_keys?: boolean;
  enable_merge_whitelist?: boolean;
  merge_whitelist_usernames?: string[];
  merge_whitelist_teams?: string[];
  enable_status_check?: boolean;
  status_check_contexts?: string[];
  required_approvals?: number;
  enable_approvals_whitelist?: boolean;
  approvals_whitelist_username?: string[];
  approvals_whitelist_teams?: string[];
  block_on_rejected_reviews?: boolean;
  block_on_official_review_requests?: boolean;
  block_on_outdated_branch?: boolean;
  dismiss_stale_approvals?: boolean;
  require_signed_commits?: boolean;
  protected_file_patterns?: string;
  unprotected_file_patterns?: string;
}

/** Rules are read and changed by repository admins only (Gitea's reqAdmin). */
const ADMIN: OperationAccess = { repo: { need: 'admin' } };

const NAME_PARAMS: JsonSchema = {
  type: 'object',
  properties: {
    ...(OWNER_REPO_PARAMS.properties as object),
    name: { type: 'string', minLength: 1, maxLength: 255, description: 'name of protected branch' },
  },
  required: ['owner', 'repo', 'name'],
};

const SIMPLE_FIELDS: Array<[keyof ProtectionBody, keyof RuleFields]> = [
  ['enable_push', 'can_push'],
  ['enable_push_whitelist', 'enable_whitelist'],
  ['push_whitelist_deploy_keys', 'whitelist_deploy_keys'],
  ['enable_merge_whitelist', 'enable_merge_whitelist'],
  ['enable_status_check', 'enable_status_check'],
  ['required_approvals', 'required_approvals'],
  ['enable_approvals_whitelist', 'enable_approvals_whitelist'],
  ['block_on_rejected_reviews', 'block_on_rejected_reviews'],
  ['block_on_official_review_requests', 'block_on_official_review_requests'],
  ['block_on_outdated_branch', 'block_on_outdated_branch'],
  ['dismiss_stale_approvals', 'dismiss_stale_approvals'],
  ['require_signed_commits', 'require_signed_commits'],
  ['protected_file_patterns', 'protected_file_patterns'],
  ['unprotected_file_patterns', 'unprotected_file_patterns'],
];

const EMPTY_RULE: RuleFields = {
  can_push: false,
  enable_whitelist: false,
  whitelist_user_ids: [],
  whitelist_team_ids: [],
  whitelist_deploy_keys: false,
  enable_merge_whitelist: false,
  merge_whitelist_user_ids: [],
  merge_whitelist_team_ids: [],
  enable_status_check: false,
  status_check_contexts: [],
  enable_approvals_whitelist: false,
  approvals_whitelist_user_ids: [],
  approvals_whitelist_team_ids: [],
  required_approvals: 0,
  block_on_rejected_reviews: false,
  block_on_official_review_requests: false,
  block_on_outdated_branch: false,
  dismiss_stale_approvals: false,
  require_signed_commits: false,
  protected_file_patterns: '',
  unprotected_file_patterns: '',
};

/**
 * Protected branches (Gitea's /repos/{owner}/{repo}/branch_protections…): repository admins
 * manage rules named by a branch or a glob. What a rule means is enforced elsewhere: moving a
 * branch (git pushes, the contents API, branch creation and deletion, pull request updates) in
 * ref-protection.ts, merges in branch-protection-checks.ts, the Branch JSON in repos/git-data-branches.ts.
 */
export function branchProtectionOperations(deps: KernelServices): ApiOperation[] {
  const { db, users } = deps;

  /** User ids for names; 422 naming the first unknown one. */
  const userIds = async (names: string[] | undefined): Promise<number[]> => {
    const ids: number[] = [];
    for (const name of new Set(names ?? [])) {
      const row = await users.byName(name);
      if (!row || row.type !== 0) throw ApiError.unprocessable(`user does not exist [name: ${name}]`);
      ids.push(row.id);
    }
    return ids;
  };
  /** Team ids of the owning organization for names; 422 for unknown teams (teams exist only in organizations). */
  const teamIds = async (r: ResolvedRepo, names: string[] | undefined): Promise<number[]> => {
    const ids: number[] = [];
    for (const name of new Set(names ?? [])) {
      const row =
        r.owner.type === 1 ? await db('teams').where({ org_id: r.owner.id, lower_name: name.toLowerCase() }).first('id') : undefined;
      if (!row) throw ApiError.unprocessable(`team does not exist [name: ${name}]`);
      ids.push(Number(row.id));
    }
    return ids;
  };

  /** The rule columns a body sets (only what it names). */
  const fieldsOf = async (r: ResolvedRepo, body: ProtectionBody): Promise<Partial<RuleFields>> => {
    const out: Partial<RuleFields> = {};
    for (const [from, to] of SIMPLE_FIELDS) if (body[from] !== undefined) (out as Record<string, unknown>)[to] = body[from];
    if (body.push_whitelist_usernames !== undefined) out.whitelist_user_ids = await userIds(body.push_whitelist_usernames);
    if (body.merge_whitelist_usernames !== undefined) out.merge_whitelist_user_ids = await userIds(body.merge_whitelist_usernames);
    if (body.approvals_whitelist_username !== undefined)
      out.approvals_whitelist_user_ids = await userIds(body.approvals_whitelist_username);
    if (body.push_whitelist_teams !== undefined) out.whitelist_team_ids = await teamIds(r, body.push_whitelist_teams);
    if (body.merge_whitelist_teams !== undefined) out.merge_whitelist_team_ids = await teamIds(r, body.merge_whitelist_teams);
    if (body.approvals_whitelist_teams !== undefined) out.approvals_whitelist_team_ids = await teamIds(r, body.approvals_whitelist_teams);
    if (body.status_check_contexts !== undefined) out.status_check_contexts = [...new Set(body.status_check_contexts)];
    return out;
  };

  const names = async (ids: number[]): Promise<string[]> => {
    if (ids.length === 0) return [];
    const rows = await db('users').whereIn('id', ids).select('id', 'name');
    const byId = new Map(rows.map((u: { id: number; name: string }) => [Number(u.id), String(u.name)]));
    return ids.map((id) => byId.get(id)).filter((n): n is string => !!n);
  };
  const teamNames = async (ids: number[]): Promise<string[]> => {
    if (ids.length === 0) return [];
    const rows = await db('teams').whereIn('id', ids).select('id', 'name');
    const byId = new Map(rows.map((t: { id: number; name: string }) => [Number(t.id), String(t.name)]));
    return ids.map((id) => byId.get(id)).filter((n): n is string => !!n);
  };

  /** Gitea's BranchProtection JSON. */
  const toApi = async (rule: ProtectedBranchRow): Promise<Record<string, unknown>> => ({
    branch_name: rule.rule_name,
    rule_name: rule.rule_name,
    enable_push: rule.can_push,
    enable_push_whitelist: rule.enable_whitelist,
    push_whitelist_usernames: await names(rule.whitelist_user_ids),
    push_whitelist_teams: await teamNames(rule.whitelist_team_ids),
    push_whitelist_deploy_keys: rule.whitelist_deploy_keys,
    enable_merge_whitelist: rule.enable_merge_whitelist,
    merge_whitelist_usernames: await names(rule.merge_whitelist_user_ids),
    merge_whitelist_teams: await teamNames(rule.merge_whitelist_team_ids),
    enable_status_check: rule.enable_status_check,
    status_check_contexts: rule.status_check_contexts,
    required_approvals: rule.required_approvals,
    enable_approvals_whitelist: rule.enable_approvals_whitelist,
    approvals_whitelist_username: await names(rule.approvals_whitelist_user_ids),
    approvals_whitelist_teams: await teamNames(rule.approvals_whitelist_team_ids),
    block_on_rejected_reviews: rule.block_on_rejected_reviews,
    block_on_official_review_requests: rule.block_on_official_review_requests,
    block_on_outdated_branch: rule.block_on_outdated_branch,
    dismiss_stale_approvals: rule.dismiss_stale_approvals,
    require_signed_commits: rule.require_signed_commits,
    protected_file_patterns: rule.protected_file_patterns,
    unprotected_file_patterns: rule.unprotected_file_patterns,
    created_at: unixToIso(rule.created_unix),
    updated_at: unixToIso(rule.updated_unix),
  });

  const requireRule = async (r: ResolvedRepo, name: string): Promise<ProtectedBranchRow> => {
    const rule = await ruleByName(db, r.repo.id, name);
    if (!rule) throw ApiError.notFound(`branch protection does not exist [rule_name: ${name}]`);
    return rule;
  };

  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/branch_protections',
      operationId: 'repoListBranchProtection',
      tag: 'repository',
      summary: 'List branch protections for a repository',
      scopes: ['repository'],
      access: ADMIN,
      auth: 'required',
      params: OWNER_REPO_PARAMS,
      responses: { 200: { description: 'BranchProtectionList', schema: { type: 'array', items: { $ref: 'BranchProtection' } } } },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        const out = [];
        for (const rule of await listRules(db, r.repo.id)) out.push(await toApi(rule));
        return ok(out);
      },
    },
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/branch_protections',
      operationId: 'repoCreateBranchProtection',
      tag: 'repository',
      summary: 'Create a branch protections for a repository',
      scopes: ['repository'],
      access: ADMIN,
      auth: 'required',
      params: OWNER_REPO_PARAMS,
      body: 'CreateBranchProtectionOption',
      bodyRequired: true,
      responses: { 201: 'BranchProtection', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<ProtectionBody, unknown, RepoParams>) => {
        const r = repoOf(req);
        const name = (req.body.rule_name || req.body.branch_name || '').trim();
        if (!name) throw ApiError.unprocessable('rule_name (or branch_name) is required');
        if (!isGlobRule(name)) {
          // A plain rule protects one branch, which must exist (as Gitea).
          const ref = isValidRefName(name) ? await readRef(r.gitDir, `refs/heads/${name}`) : null;
          if (!ref) throw ApiError.notFound(`branch does not exist [branch: ${name}]`);
        }
        if (await ruleByName(db, r.repo.id, name)) throw ApiError.forbidden(`Branch protection already exist [rule_name: ${name}]`);
        const rule = await insertRule(db, r.repo.id, name, { ...EMPTY_RULE, ...(await fieldsOf(r, req.body)) });
        return created(await toApi(rule));
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/branch_protections/{name}',
      operationId: 'repoGetBranchProtection',
      tag: 'repository',
      summary: 'Get a specific branch protection for the repository',
      scopes: ['repository'],
      access: ADMIN,
      auth: 'required',
      params: NAME_PARAMS,
      responses: { 200: 'BranchProtection', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, NameParams>) => {
        const r = repoOf(req);
        return ok(await toApi(await requireRule(r, req.params.name)));
      },
    },
    {
      method: 'patch',
      path: '/repos/{owner}/{repo}/branch_protections/{name}',
      operationId: 'repoEditBranchProtection',
      tag: 'repository',
      summary: 'Edit a branch protections for a repository. Only fields that are set will be changed',
      scopes: ['repository'],
      access: ADMIN,
      auth: 'required',
      params: NAME_PARAMS,
      body: 'EditBranchProtectionOption',
      bodyRequired: true,
      responses: { 200: 'BranchProtection', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<ProtectionBody, unknown, NameParams>) => {
        const r = repoOf(req);
        const rule = await requireRule(r, req.params.name);
        const fields = await fieldsOf(r, req.body);
        return ok(await toApi(Object.keys(fields).length ? await updateRule(db, rule.id, fields) : rule));
      },
    },
    {
      method: 'delete',
      path: '/repos/{owner}/{repo}/branch_protections/{name}',
      operationId: 'repoDeleteBranchProtection',
      tag: 'repository',
      summary: 'Delete a specific branch protection for the repository',
      scopes: ['repository'],
      access: ADMIN,
      auth: 'required',
      params: NAME_PARAMS,
      responses: { 204: 'deleted', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, NameParams>) => {
        const r = repoOf(req);
        await deleteRule(db, (await requireRule(r, req.params.name)).id);
        return noContent();
      },
    },
  ];
}
