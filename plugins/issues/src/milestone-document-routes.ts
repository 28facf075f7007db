import { ApiError, created, insertId, ok, OWNER_REPO_PARAMS, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { list, type IssueContext, type IssueDeps, type RepoParams } from './issue-context';
import { inTransaction, toMilestone } from './issue-store';
import { documentItemToColumns, milestonesToDocument, validateMilestoneDocument, type MilestoneDocumentItem } from './milestone-document';

const DOCUMENT_NOTE =
  "Hearth extension (not in Gitea's API): the milestone document of the migration interchange format, " +
  'a JSON array validated with JSON Schema draft-04 (plugins/issues/schemas/milestone.draft-04.json).';

/**
 * `GET/POST /repos/{owner}/{repo}/interchange/milestones`: export a repository's milestones as
 * the interchange document, and import such a document (all or nothing; 422 with the schema's
 * findings when it is not valid; 409 when a title already exists in the repository).
 */
export function milestoneDocumentOperations({ db }: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };
  const documentSchema = {
    type: 'array',
    description: 'Milestone interchange document (JSON Schema draft-04: plugins/issues/schemas/milestone.draft-04.json)',
    items: { type: 'object' },
  };
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/interchange/milestones',
      operationId: 'hearthExportMilestones',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: `Export a repository's milestones as the interchange document. ${DOCUMENT_NOTE}`,
      params: OWNER_REPO_PARAMS,
      responses: { 200: { description: 'MilestoneDocument', schema: documentSchema }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const o = await ctx.open(req);
        const rows = (await db('milestone').where('repo_id', o.r.id).orderBy('id')).map(toMilestone);
        return ok(milestonesToDocument(rows));
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/interchange/milestones',
      operationId: 'hearthImportMilestones',
      access: { repo: { need: 'write', unit: 'issues' } },
      auth: 'required',
      summary: `Import milestones from an interchange document. ${DOCUMENT_NOTE}`,
      params: OWNER_REPO_PARAMS,
      body: { description: documentSchema.description },
      bodyRequired: true,
      responses: { 201: list('Milestone'), 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const o = await ctx.open(req);
        const problems = validateMilestoneDocument(req.body);
        if (problems.length) {
          throw ApiError.unprocessable(
            `the milestone document is not valid: ${problems
              .slice(0, 5)
              .map((p) => `${p.field} ${p.message}`)
              .join('; ')}`,
            { errors: problems },
          );
        }
        const items = req.body as MilestoneDocumentItem[];
        const titles = new Set<string>();
        for (const item of items) {
          if (titles.has(item.title))
            throw ApiError.unprocessable(`the document has the milestone "${item.title}" twice`, {
              errors: [{ field: 'title', message: `duplicate ${item.title}` }],
            });
          titles.add(item.title);
        }
        const ids = await inTransaction(db, async (trx) => {
          if (items.length) {
            const taken = await trx('milestone')
              .where('repo_id', o.r.id)
              .whereIn('name', [...titles])
              .select('name');
            if (taken.length)
              throw ApiError.conflict(
                `milestones already exist in this repository: ${taken.map((t: { name: string }) => t.name).join(', ')}`,
              );
          }
          const out: number[] = [];
          for (const item of items) out.push(await insertId(trx, 'milestone', { repo_id: o.r.id, ...documentItemToColumns(item) }));
          return out;
        });
        const rows = ids.length ? (await db('milestone').whereIn('id', ids).orderBy('id')).map(toMilestone) : [];
        return created(await ctx.milestoneJsons(rows));
      },
    },
  ];
}
