import { ApiError, created, noContent, ok, type ApiOperation, type ApiRequest, type JsonSchema, type Principal } from '@hearth/plugin-api';
import type { Knex } from 'knex';
import type { KernelServices } from '../kernel-services';
import { OWNER_REPO_PARAMS } from '../repos/repo-routes';
import type { ResolvedRepo } from '../repos/repo-service';
import { insertId } from '../orgs/org-store';
import { ownerOf } from '../access/operation-access';
import { readableRepoIds } from '../access/readable-repos';
import { nowUnix, type UserRow } from '../users/models';
import { issueContext, list, parseTime, type IssueContext, type RepoParams } from './issue-context';
import { inTransaction, labelColor, labelPatch, toIssue, toLabel, toMilestone, type IssueRow, type LabelBody, type LabelRow } from './issue-store';
import { labelTemplatesFor } from './label-templates';
import { dropOrgLabelsFromRepo, removeOrgLabels } from './org-labels';
import { documentItemToColumns, milestonesToDocument, validateMilestoneDocument, type MilestoneDocumentItem } from './milestone-document';
import { REVIEW_TYPE } from '../pulls/review-store';

type OrgParams = { org: string };
type OrgIdParams = OrgParams & { id: number };

const ORG_PARAMS: JsonSchema = {
  type: 'object', properties: { org: { type: 'string', maxLength: 255, description: 'name of the organization' } }, required: ['org'],
};
const ORG_ID_PARAMS: JsonSchema = {
  type: 'object',
  properties: { org: { type: 'string', maxLength: 255, description: 'name of the organization' }, id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the label' } },
  required: ['org', 'id'],
};

const escapeLike = (s: string) => s.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`);
const names = (s: string | undefined) => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean);


/**
 * Organization labels, label templates, the milestone interchange document, cross-repository
 * issue search. See README "Issue catalog".
 */
export function issueCatalogOperations(deps: KernelServices): ApiOperation[] {
  const ctx = issueContext(deps);
  tapOrgLabelCleanup(deps);
  return [...orgLabelOperations(deps), ...labelTemplateOperations(deps), ...milestoneDocumentOperations(deps, ctx), ...issueSearchOperations(deps, ctx)];
}

/** An organization's labels go with it (and off the issues that carry them). */
function tapOrgLabelCleanup({ hooks, db }: KernelServices): void {
  if (hooks.user.deleting.taps.some((t) => t.name === 'hearth:org-labels')) return;
  hooks.user.deleting.tapPromise('hearth:org-labels', async ({ user, trx }) => removeOrgLabels(trx, user.id));
  // The old organization's labels are not usable in the repository's new home: off its issues they go.
  hooks.repository.transferred.tapPromise('hearth:org-labels', ({ repositoryId, oldOwnerId }) => dropOrgLabelsFromRepo(db, repositoryId, oldOwnerId));
}

// --- organization labels ---------------------------------------------------------------------------

/**
 * `/orgs/{org}/labels…`: labels of an organization (rows with `org_id`, `repo_id` 0), usable on
 * the issues of all its repositories. Reading needs the organization to be visible to the caller;
 * changes need an owner of the organization (or a site admin), as Gitea's reqOrgOwnership: both declared.
 */
function orgLabelOperations(deps: KernelServices): ApiOperation[] {
  const { db, config, http } = deps;
  const labelJson = (org: UserRow, l: LabelRow) => ({
    id: l.id, name: l.name, exclusive: l.exclusive, color: l.color.replace(/^#/, ''), description: l.description,
    url: `${config.server.ROOT_URL}api/v1/orgs/${encodeURIComponent(org.name)}/labels/${l.id}`,
  });
  const labelOf = async (org: UserRow, id: number): Promise<LabelRow> => {
    const row = await db('label').where({ id, org_id: org.id, repo_id: 0 }).first();
    if (!row) throw ApiError.notFound(`label does not exist [id: ${id}]`);
    return toLabel(row);
  };

  const base = { tag: 'organization', scopes: ['organization'] as ['organization'] };
  return [
    {
      ...base, method: 'get', path: '/orgs/{org}/labels', operationId: 'orgListLabels', access: { org: 'visible' }, summary: "List an organization's labels",
      params: ORG_PARAMS, paged: true, responses: { 200: list('Label'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, OrgParams>) => {
        const org = ownerOf(req);
        const q = db('label').where({ org_id: org.id, repo_id: 0 });
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = (await q.clone().orderBy([{ column: 'name', order: 'asc' }, { column: 'id', order: 'asc' }]).offset(req.paging.offset).limit(req.paging.limit)).map(toLabel);
        return http.paged(req, rows.map((l) => labelJson(org, l)), Number(n));
      },
    },
    {
      ...base, method: 'post', path: '/orgs/{org}/labels', operationId: 'orgCreateLabel', access: { org: 'owner' }, summary: 'Create a label for an organization', auth: 'required',
      params: ORG_PARAMS, body: 'CreateLabelOption', bodyRequired: true, responses: { 201: 'Label', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<Required<Pick<LabelBody, 'name' | 'color'>> & LabelBody, unknown, OrgParams>) => {
        const org = ownerOf(req);
        const now = nowUnix();
        const id = await insertId(db, 'label', {
          repo_id: 0, org_id: org.id, name: req.body.name, color: labelColor(req.body.color), description: req.body.description ?? '',
          exclusive: req.body.exclusive ?? false, created_unix: now, updated_unix: now,
        });
        return created(labelJson(org, await labelOf(org, id)));
      },
    },
    {
      ...base, method: 'get', path: '/orgs/{org}/labels/{id}', operationId: 'orgGetLabel', access: { org: 'visible' }, summary: 'Get a single label',
      params: ORG_ID_PARAMS, responses: { 200: 'Label', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, OrgIdParams>) => {
        const org = ownerOf(req);
        return ok(labelJson(org, await labelOf(org, req.params.id)));
      },
    },
    {
      ...base, method: 'patch', path: '/orgs/{org}/labels/{id}', operationId: 'orgEditLabel', access: { org: 'owner' }, summary: 'Update a label', auth: 'required',
      params: ORG_ID_PARAMS, body: 'EditLabelOption', bodyRequired: true, responses: { 200: 'Label', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<LabelBody, unknown, OrgIdParams>) => {
        const org = ownerOf(req);
        const label = await labelOf(org, req.params.id);
        await db('label').where('id', label.id).update(labelPatch(req.body, nowUnix()));
        return ok(labelJson(org, await labelOf(org, label.id)));
      },
    },
    {
      ...base, method: 'delete', path: '/orgs/{org}/labels/{id}', operationId: 'orgDeleteLabel', access: { org: 'owner' }, summary: 'Delete a label', auth: 'required',
      params: ORG_ID_PARAMS, responses: { 204: 'label deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, OrgIdParams>) => {
        const org = ownerOf(req);
        const label = await labelOf(org, req.params.id);
        await inTransaction(db, async (trx) => {
          await trx('issue_label').where('label_id', label.id).delete();
          await trx('label').where('id', label.id).delete();
        });
        return noContent();
      },
    },
  ];
}

// --- label templates -------------------------------------------------------------------------------

/** `/label/templates*`: public data, as Gitea serves it (any token works whatever its scope). */
function labelTemplateOperations({ config }: KernelServices): ApiOperation[] {
  const templates = () => labelTemplatesFor(config);
  return [
    {
      method: 'get', path: '/label/templates', operationId: 'listLabelTemplates', access: 'anyone', tag: 'miscellaneous', summary: 'Returns a list of all label templates', scopes: 'public',
      responses: { 200: { description: 'LabelTemplateList', schema: { type: 'array', items: { type: 'string' } } } },
      handler: () => ok(templates().names()),
    },
    {
      method: 'get', path: '/label/templates/{name}', operationId: 'getLabelTemplateInfo', access: 'anyone', tag: 'miscellaneous', summary: 'Returns all labels in a template', scopes: 'public',
      params: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 255, description: 'name of the template' } }, required: ['name'] },
      responses: { 200: { description: 'LabelTemplateInfo', schema: { type: 'array', items: { $ref: 'LabelTemplate' } } }, 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, { name: string }>) => {
        const labels = templates().get(req.params.name);
        if (!labels) throw ApiError.notFound(`label template does not exist [name: ${req.params.name}]`);
        return ok(labels);
      },
    },
  ];
}

// --- milestone interchange document ----------------------------------------------------------------

const DOCUMENT_NOTE = 'Hearth extension (not in Gitea\'s API): the milestone document of the migration interchange format, a JSON array validated with JSON Schema draft-04 (schemas/migration/milestone.draft-04.json).';

/**
 * `GET/POST /repos/{owner}/{repo}/interchange/milestones`: export a repository's milestones as
 * the interchange document, and import such a document (all or nothing; 422 with the schema's
 * findings when it is not valid; 409 when a title already exists in the repository).
 */
function milestoneDocumentOperations({ db }: KernelServices, ctx: IssueContext): ApiOperation[] {
  const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };
  const documentSchema = { type: 'array', description: 'Milestone interchange document (JSON Schema draft-04: schemas/migration/milestone.draft-04.json)', items: { type: 'object' } };
  return [
    {
      ...base, method: 'get', path: '/repos/{owner}/{repo}/interchange/milestones', operationId: 'hearthExportMilestones', access: { repo: { need: 'read', unit: 'issues' } },
      summary: `Export a repository's milestones as the interchange document. ${DOCUMENT_NOTE}`,
      params: OWNER_REPO_PARAMS, responses: { 200: { description: 'MilestoneDocument', schema: documentSchema }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const o = await ctx.open(req);
        const rows = (await db('milestone').where('repo_id', o.r.repo.id).orderBy('id')).map(toMilestone);
        return ok(milestonesToDocument(rows));
      },
    },
    {
      ...base, method: 'post', path: '/repos/{owner}/{repo}/interchange/milestones', operationId: 'hearthImportMilestones', access: { repo: { need: 'write', unit: 'issues' } }, auth: 'required',
      summary: `Import milestones from an interchange document. ${DOCUMENT_NOTE}`,
      params: OWNER_REPO_PARAMS, body: { description: documentSchema.description }, bodyRequired: true,
      responses: { 201: list('Milestone'), 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const o = await ctx.open(req);
        const problems = validateMilestoneDocument(req.body);
        if (problems.length) {
          throw ApiError.unprocessable(`the milestone document is not valid: ${problems.slice(0, 5).map((p) => `${p.field} ${p.message}`).join('; ')}`, { errors: problems });
        }
        const items = req.body as MilestoneDocumentItem[];
        const titles = new Set<string>();
        for (const item of items) {
          if (titles.has(item.title)) throw ApiError.unprocessable(`the document has the milestone "${item.title}" twice`, { errors: [{ field: 'title', message: `duplicate ${item.title}` }] });
          titles.add(item.title);
        }
        const ids = await inTransaction(db, async (trx) => {
          if (items.length) {
            const taken = await trx('milestone').where('repo_id', o.r.repo.id).whereIn('name', [...titles]).select('name');
            if (taken.length) throw ApiError.conflict(`milestones already exist in this repository: ${taken.map((t: { name: string }) => t.name).join(', ')}`);
          }
          const out: number[] = [];
          for (const item of items) out.push(await insertId(trx, 'milestone', { repo_id: o.r.repo.id, ...documentItemToColumns(item) }));
          return out;
        });
        const rows = ids.length ? (await db('milestone').whereIn('id', ids).orderBy('id')).map(toMilestone) : [];
        return created(await ctx.milestoneJsons(rows));
      },
    },
  ];
}

// --- cross-repository issue search ------------------------------------------------------------------

interface SearchQuery {
  state?: 'open' | 'closed' | 'all';
  labels?: string;
  milestones?: string;
  q?: string;
  priority_repo_id?: number;
  type?: 'issues' | 'pulls';
  since?: string;
  before?: string;
  assigned?: boolean;
  created?: boolean;
  mentioned?: boolean;
  review_requested?: boolean;
  reviewed?: boolean;
  owner?: string;
  team?: string;
}

/**
 * Ids of the repositories whose issues `viewer` may search, as a subquery (never loaded into
 * memory): those they may read (readableRepoIds) with the issues unit switched on.
 */
function searchableRepoIds(db: Knex, viewer: Principal | null): Knex.QueryBuilder {
  const q = db('repositories as vr').select('vr.id').whereNot('vr.units', 'like', '%"issues":false%');
  const readable = readableRepoIds(db, viewer);
  return readable ? q.whereIn('vr.id', readable) : q;
}

function issueSearchOperations(deps: KernelServices, ctx: IssueContext): ApiOperation[] {
  const { db, users, repos, http } = deps;
  const bool = { type: 'boolean' };
  const query: JsonSchema = {
    type: 'object',
    properties: {
      state: { type: 'string', enum: ['open', 'closed', 'all'], description: 'whether issue is open or closed' },
      labels: { type: 'string', maxLength: 4096, description: 'comma separated list of labels. Fetch only issues that have any of this labels. Non existent labels are discarded' },
      milestones: { type: 'string', maxLength: 4096, description: 'comma separated list of milestone names. Fetch only issues that have any of this milestones. Non existent are discarded' },
      q: { type: 'string', maxLength: 255, description: 'search string' },
      priority_repo_id: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'repository to prioritize in the results' },
      type: { type: 'string', enum: ['issues', 'pulls'], description: 'filter by type (issues / pulls) if set' },
      since: { type: 'string', maxLength: 64, description: 'Only show notifications updated after the given time. This is a timestamp in RFC 3339 format' },
      before: { type: 'string', maxLength: 64, description: 'Only show notifications updated before the given time. This is a timestamp in RFC 3339 format' },
      assigned: { ...bool, description: 'filter (issues / pulls) assigned to you, default is false' },
      created: { ...bool, description: 'filter (issues / pulls) created by you, default is false' },
      mentioned: { ...bool, description: 'filter (issues / pulls) mentioning you, default is false' },
      review_requested: { ...bool, description: 'filter pulls requesting your review, default is false' },
      reviewed: { ...bool, description: 'filter pulls reviewed by you, default is false' },
      owner: { type: 'string', maxLength: 255, description: 'filter by owner' },
      team: { type: 'string', maxLength: 255, description: 'filter by team (requires organization owner parameter to be provided)' },
    },
  };

  return [
    {
      method: 'get', path: '/repos/issues/search', operationId: 'issueSearchIssues', access: 'anyone', tag: 'issue', scopes: ['issue'],
      summary: 'Search for issues across the repositories that the user has access to',
      query, paged: true, responses: { 200: list('Issue'), 400: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, SearchQuery>) => {
        const f = req.query;
        const viewer = req.principal;
        const repoIds = searchableRepoIds(db, viewer);
        if (f.owner) {
          const owner = await users.byName(f.owner);
          if (!owner) throw ApiError.badRequest(`Owner not found [name: ${f.owner}]`);
          repoIds.where('vr.owner_id', owner.id);
          if (f.team) {
            if (owner.type !== 1) throw ApiError.badRequest('Owner organisation is required for filtering on team');
            const team = await db('teams').where('org_id', owner.id).whereRaw('LOWER(name) = ?', [f.team.toLowerCase()]).first();
            if (!team) throw ApiError.badRequest(`Team not found [name: ${f.team}]`);
            const all = Boolean(Number(team.includes_all_repositories)) || Number(team.authorize) >= 4;
            if (!all) repoIds.whereIn('vr.id', db('team_repos').where('team_id', team.id).select('repo_id'));
          }
        } else if (f.team) {
          throw ApiError.badRequest('Owner organisation is required for filtering on team');
        }

        const q = db('issue').whereIn('repo_id', repoIds);
        const st = f.state ?? 'open';
        if (st !== 'all') q.where('is_closed', st === 'closed');
        if (f.type) q.where('is_pull', f.type === 'pulls');
        // Issues carrying every named label (by name, in whichever repository or organization it is defined).
        for (const name of new Set(names(f.labels))) {
          q.whereIn('id', db('issue_label as il').join('label as l', 'l.id', 'il.label_id').where('l.name', name).select('il.issue_id'));
        }
        const milestoneNames = names(f.milestones);
        if (milestoneNames.length) q.whereIn('milestone_id', db('milestone').whereIn('name', milestoneNames).select('id'));
        if (f.q) {
          const like = `%${escapeLike(f.q)}%`;
          q.where((w) => w.whereRaw("LOWER(name) LIKE ? ESCAPE '!'", [like]).orWhereRaw("LOWER(content) LIKE ? ESCAPE '!'", [like]));
        }
        if (f.since) q.where('updated_unix', '>=', parseTime(f.since, 'since'));
        if (f.before) q.where('updated_unix', '<=', parseTime(f.before, 'before'));
        // As Gitea: the "my" filters apply to signed-in callers and are ignored otherwise.
        if (viewer) {
          if (f.created) q.where('poster_id', viewer.user.id);
          if (f.assigned) q.whereIn('id', db('issue_assignees').where('assignee_id', viewer.user.id).select('issue_id'));
          if (f.mentioned) q.whereIn('id', db('issue_mention').where('user_id', viewer.user.id).select('issue_id'));
          // Review requests to the caller or to a team the caller is in; reviews the caller submitted.
          if (f.review_requested) {
            q.whereIn('id', db('review').where('type', REVIEW_TYPE.request).where((w) => w.where('reviewer_id', viewer.user.id)
              .orWhereIn('reviewer_team_id', db('team_users').where('uid', viewer.user.id).select('team_id'))).select('issue_id'));
          }
          if (f.reviewed) q.whereIn('id', db('review').where('reviewer_id', viewer.user.id).whereIn('type', [REVIEW_TYPE.approve, REVIEW_TYPE.comment, REVIEW_TYPE.reject]).select('issue_id'));
        }

        const [{ n }] = await q.clone().count({ n: '*' });
        const ordered = q.clone();
        if (f.priority_repo_id) ordered.orderByRaw('CASE WHEN repo_id = ? THEN 0 ELSE 1 END', [f.priority_repo_id]);
        const rows = (await ordered.orderBy([{ column: 'created_unix', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(req.paging.offset).limit(req.paging.limit)).map(toIssue);
        return http.paged(req, await issueJsonsAcrossRepos(deps, ctx, rows, viewer), Number(n));
      },
    },
  ];

  /**
   * Issue JSON for rows of several repositories, in the rows' order. The visibility subquery works
   * at repository level; the issues unit is re-checked per repository here (a team may grant a
   * repository without its issues unit), and issues of a repository failing it are left out.
   */
  async function issueJsonsAcrossRepos(_deps: KernelServices, c: IssueContext, rows: IssueRow[], viewer: Principal | null): Promise<Record<string, unknown>[]> {
    const byRepo = new Map<number, IssueRow[]>();
    for (const row of rows) byRepo.set(row.repo_id, [...(byRepo.get(row.repo_id) ?? []), row]);
    const jsons = new Map<number, Record<string, unknown>>();
    for (const [repoId, issues] of byRepo) {
      const repo = await repos.byId(repoId);
      const owner = repo ? await users.byId(repo.owner_id) : undefined;
      if (!repo || !owner) continue;
      if ((await repos.access.unitPermission(repo, viewer, 'issues', owner)) === 'none') continue;
      const r = { repo, owner } as ResolvedRepo;
      const out = await c.issueJsons(r, issues, viewer);
      issues.forEach((issue, i) => jsons.set(issue.id, out[i]));
    }
    return rows.map((row) => jsons.get(row.id)).filter((j): j is Record<string, unknown> => !!j);
  }
}
