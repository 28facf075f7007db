import type { Knex } from 'knex';
import {
  ApiError,
  created,
  noContent,
  ok,
  OWNER_REPO_PARAMS,
  ownerRepoParams,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type OperationAccess,
} from '@hearth/plugin-api';
import { repoOf } from '../access/operation-access';
import type { KernelServices } from '../kernel-services';
import { isValidRefName } from '../repos/names';
import type { ResolvedRepo } from '../repos/repo-service';
import { deleteRule, insertRule, isGlobRule, listRules, ruleByName, updateRule, type ProtectedBranchRow } from './branch-protection-store';
import { EMPTY_RULE, ruleFieldsOf, ruleJson, type ProtectionBody } from './branch-protection-json';

type RepoParams = { owner: string; repo: string };
type NameParams = RepoParams & { name: string };

/** Rules are read and changed by repository admins only (Gitea's reqAdmin). */
const ADMIN: OperationAccess = { repo: { need: 'admin' } };

const NAME_PARAMS: JsonSchema = ownerRepoParams({
  name: { type: 'string', minLength: 1, maxLength: 255, description: 'name of protected branch' },
});

/**
 * Protected branches (Gitea's /repos/{owner}/{repo}/branch_protections…): repository admins
 * manage rules named by a branch or a glob. What a rule means is enforced elsewhere: moving a
 * branch (git pushes, the contents API, branch creation and deletion, pull request updates) in
 * ref-protection.ts, merges in branch-protection-checks.ts, the Branch JSON in repos/git-data-branches.ts.
 */
export function branchProtectionOperations(deps: KernelServices): ApiOperation[] {
  const { db } = deps;

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
        for (const rule of await listRules(db, r.repo.id)) out.push(await ruleJson(db, rule));
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
        // A plain rule protects one branch, which need not exist yet (Gitea 1.20): it applies once it is
        // pushed or created. A name git could never give a branch is refused.
        if (!isGlobRule(name) && !isValidRefName(name)) {
          throw ApiError.unprocessable(`invalid branch name for a protection rule [rule_name: ${name}]`);
        }
        if (await ruleByName(db, r.repo.id, name)) throw ApiError.forbidden(`Branch protection already exist [rule_name: ${name}]`);
        const rule = await insertRule(db, r.repo.id, name, { ...EMPTY_RULE, ...(await ruleFieldsOf(deps, r, req.body)) });
        return created(await ruleJson(db, rule));
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
        return ok(await ruleJson(db, await requireRule(db, r, req.params.name)));
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
        const rule = await requireRule(db, r, req.params.name);
        const fields = await ruleFieldsOf(deps, r, req.body);
        return ok(await ruleJson(db, Object.keys(fields).length ? await updateRule(db, rule.id, fields) : rule));
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
        await deleteRule(db, (await requireRule(db, r, req.params.name)).id);
        return noContent();
      },
    },
  ];
}

/** The rule named `name` of the repository; 404 when there is none. */
async function requireRule(db: Knex, r: ResolvedRepo, name: string): Promise<ProtectedBranchRow> {
  const rule = await ruleByName(db, r.repo.id, name);
  if (!rule) throw ApiError.notFound(`branch protection does not exist [rule_name: ${name}]`);
  return rule;
}
