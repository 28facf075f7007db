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
  type Principal,
} from '@hearth/plugin-api';
import { ZERO_ID } from './git';
import { readCommits, toPayloadCommits } from './commit-json';
import { gitRepoOf, listRefs, readRef, type GitDataRepo, type RefInfo } from './git-data-git';
import { notFoundAs, resolveCommit } from './revisions';
import { assertValidRefName, isValidRefName } from './names';
import { READ_CODE, WRITE_CODE, type GitRouteDeps } from './route-deps';
import {
  canMergeUnderRule,
  canPushUnderRule,
  firstMatchingRule,
  listRules,
  type ProtectedBranchRow,
} from '../protection/branch-protection-store';
import { assertRefChange } from '../protection/ref-protection';

type Params = { owner: string; repo: string; branch: string };

interface CreateBranchBody {
  new_branch_name: string;
  old_ref_name?: string;
  old_branch_name?: string;
}

const BRANCH_PARAMS: JsonSchema = ownerRepoParams({
  branch: { type: 'string', minLength: 1, maxLength: 255, description: 'name of the branch (may contain /)' },
});

const HEADS = 'refs/heads/';

/** Gitea's `Branch` objects for branch refs (commits read in one git call, authors in one query). */
async function branchesToApi(
  deps: GitRouteDeps,
  r: GitDataRepo,
  viewer: Principal | null,
  refs: RefInfo[],
): Promise<Record<string, unknown>[]> {
  const commits = await readCommits(
    r.gitDir,
    refs.map((b) => b.id),
  );
  const payloads = await toPayloadCommits(deps, r.links, [...commits.values()]);
  const byId = new Map(payloads.map((p) => [p.id as string, p]));
  // Without branch protection, whoever may write the code may push to and merge into every branch;
  // a protected branch's rule decides for it (Gitea's ToBranch).
  const canWrite = viewer !== null && r.resolved.permission.push && !r.resolved.repo.is_archived;
  const db = deps.repos.query().knex();
  const rules = await listRules(db, r.resolved.repo.id);
  // What the viewer may do under each rule, asked once per rule (whitelists may need team lookups).
  const verdicts = new Map<number, { push: boolean; merge: boolean }>();
  const verdictOf = async (rule: ProtectedBranchRow) => {
    let v = verdicts.get(rule.id);
    if (!v) {
      v = canWrite
        ? { push: await canPushUnderRule(db, rule, viewer!.user.id), merge: await canMergeUnderRule(db, rule, viewer!.user.id) }
        : { push: false, merge: false };
      verdicts.set(rule.id, v);
    }
    return v;
  };
  const out: Record<string, unknown>[] = [];
  for (const b of refs) {
    const name = b.ref.slice(HEADS.length);
    const rule = rules.length ? firstMatchingRule(rules, name) : undefined;
    out.push({
      name,
      commit: byId.get(b.id) ?? null,
      protected: !!rule,
      required_approvals: rule?.required_approvals ?? 0,
      enable_status_check: rule?.enable_status_check ?? false,
      status_check_contexts: rule?.status_check_contexts ?? [],
      user_can_push: canWrite && (!rule || (await verdictOf(rule)).push),
      user_can_merge: canWrite && (!rule || (await verdictOf(rule)).merge),
      effective_branch_protection_name: rule?.rule_name ?? '',
    });
  }
  return out;
}

/** The branch ref for a name from the URL, or 404 (a name git would refuse cannot exist). */
async function requireBranch(r: GitDataRepo, name: string): Promise<RefInfo> {
  const ref = isValidRefName(name) ? await readRef(r.gitDir, `${HEADS}${name}`) : null;
  if (!ref || ref.type !== 'commit') throw ApiError.notFound(`branch does not exist [branch: ${name}]`);
  return ref;
}

/** Branches: list, get, create (from a branch, tag or commit), delete (never the default one). */
export function branchOperations(deps: GitRouteDeps): ApiOperation[] {
  const { repos } = deps;
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/branches',
      operationId: 'repoListBranches',
      tag: 'repository',
      summary: "List a repository's branches",
      scopes: ['repository'],
      access: READ_CODE,
      params: OWNER_REPO_PARAMS,
      paged: true,
      responses: { 200: { description: 'BranchList', schema: { type: 'array', items: { $ref: 'Branch' } } } },
      handler: async (req: ApiRequest<unknown, unknown, Params>) => {
        const r = gitRepoOf(deps, req);
        // Most recently committed first, then by name, as Gitea 1.20 lists them from git.
        const all = (await listRefs(r.gitDir, [HEADS], { sort: ['refname', '-committerdate'] })).filter((b) => b.type === 'commit');
        const page = all.slice(req.paging.offset, req.paging.offset + req.paging.limit);
        return deps.http.paged(req, await branchesToApi(deps, r, req.principal, page), all.length);
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/branches/{branch*}',
      operationId: 'repoGetBranch',
      tag: 'repository',
      summary: 'Retrieve a specific branch from a repository',
      scopes: ['repository'],
      access: READ_CODE,
      params: BRANCH_PARAMS,
      responses: { 200: 'Branch', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, Params>) => {
        const r = gitRepoOf(deps, req);
        const [branch] = await branchesToApi(deps, r, req.principal, [await requireBranch(r, req.params.branch)]);
        return ok(branch);
      },
    },
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/branches',
      operationId: 'repoCreateBranch',
      tag: 'repository',
      summary: 'Create a branch',
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: OWNER_REPO_PARAMS,
      body: 'CreateBranchRepoOption',
      bodyRequired: true,
      responses: { 201: 'Branch', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateBranchBody, unknown, Params>) => {
        const r = gitRepoOf(deps, req);
        const { new_branch_name: name, old_ref_name: oldRef, old_branch_name: oldBranch } = req.body;
        assertValidRefName(name, 'branch');
        if (name === 'HEAD') throw ApiError.unprocessable('invalid branch name [branch: HEAD]: HEAD is reserved');
        if (r.resolved.repo.is_empty) throw ApiError.notFound('Git Repository is empty. Push a first commit before creating branches.');

        let start: string;
        if (oldRef) {
          start = await notFoundAs(
            resolveCommit(r.gitDir, oldRef, 'old_ref_name'),
            `The old branch, tag or commit does not exist [old_ref_name: ${oldRef}]`,
          );
        } else {
          const from = oldBranch || r.resolved.repo.default_branch;
          if (oldBranch) assertValidRefName(oldBranch, 'old_branch_name');
          const ref = isValidRefName(from) ? await readRef(r.gitDir, `${HEADS}${from}`) : null;
          if (!ref || ref.type !== 'commit') throw ApiError.notFound(`The old branch does not exist [branch: ${from}]`);
          start = ref.id;
        }

        if (await readRef(r.gitDir, `${HEADS}${name}`)) throw ApiError.conflict(`The branch already exists. [branch: ${name}]`);
        if (await readRef(r.gitDir, `refs/tags/${name}`))
          throw ApiError.conflict(`The branch with the same tag already exists. [name: ${name}]`);
        // A name a protected branch rule covers is created only by who may push to it (Gitea pushes it as the caller).
        await assertRefChange(repos, r.resolved.repo, req.principal, `${HEADS}${name}`, 'create');
        // 'refs/heads/a' exists, so 'refs/heads/a/b' cannot (or the reverse), or a racing creation won.
        if (
          !(await repos.updateRef(
            r.resolved.repo,
            `${HEADS}${name}`,
            ZERO_ID,
            start,
            req.principal!.user,
            'hearth: branch created through the API',
          ))
        ) {
          throw ApiError.conflict(`The branch with the same name already exists or conflicts with an existing branch [branch: ${name}]`);
        }
        const [branch] = await branchesToApi(deps, r, req.principal, [{ ref: `${HEADS}${name}`, id: start, type: 'commit' }]);
        return created(branch);
      },
    },
    {
      method: 'delete',
      path: '/repos/{owner}/{repo}/branches/{branch*}',
      operationId: 'repoDeleteBranch',
      tag: 'repository',
      summary: 'Delete a specific branch from a repository',
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: BRANCH_PARAMS,
      responses: { 204: 'deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, Params>) => {
        const r = gitRepoOf(deps, req);
        const name = req.params.branch;
        if (r.resolved.repo.is_empty) throw ApiError.notFound('Git Repository is empty.');
        if (name === r.resolved.repo.default_branch) {
          throw ApiError.forbidden(`can not delete default branch [branch: ${name}]: make another branch the default first`);
        }
        const ref = await requireBranch(r, name);
        await assertRefChange(repos, r.resolved.repo, req.principal, ref.ref, 'delete');
        if (
          !(await repos.updateRef(r.resolved.repo, ref.ref, ref.id, ZERO_ID, req.principal!.user, 'hearth: branch deleted through the API'))
        ) {
          throw ApiError.conflict(`the branch changed while it was being deleted; try again [branch: ${name}]`);
        }
        return noContent();
      },
    },
  ];
}
