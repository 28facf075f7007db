import type { ApiRequest, JsonSchema, Principal, RepositoryInfo } from '@hearth/plugin-api';
import type { IssueContext, IssueDeps, RepoParams } from './issue-context';
import { toIssue } from './issue-store';
import { COMMENT_TYPE } from './timeline';

/** What the interaction routes (pins, locks, subscriptions, dependencies, reactions, attachments, timeline) share. */

export type IndexParams = RepoParams & { index: number };
export type IdParams = RepoParams & { id: number };
export type AnyRequest = ApiRequest<any, any, any>;

export const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };
/** Comment types that are conversation entries (reactions and attachments allowed): comments and review comments. */
export const CONVERSATION_TYPES = [COMMENT_TYPE.comment, COMMENT_TYPE.code, COMMENT_TYPE.review];

export const withProps = (schema: JsonSchema, props: Record<string, unknown>, required: string[]): JsonSchema => ({
  type: 'object',
  properties: { ...(schema.properties as object), ...props },
  required: [...((schema.required as string[]) ?? []), ...required],
});

/** The Issue JSON of issues of any repository the viewer may read (others are left out), by issue id. */
export async function issuesAnywhere(
  deps: IssueDeps,
  ctx: IssueContext,
  ids: number[],
  viewer: Principal | null,
  known?: RepositoryInfo,
): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>();
  if (ids.length === 0) return out;
  const rows = (await deps.db('issue').whereIn('id', [...new Set(ids)])).map(toIssue);
  const resolved = new Map<number, RepositoryInfo | null>();
  if (known) resolved.set(known.id, known);
  for (const row of rows) {
    if (!resolved.has(row.repo_id)) {
      const repo = await deps.repositories.byId(row.repo_id);
      resolved.set(
        row.repo_id,
        repo ? await deps.access.repository(repo.ownerName, repo.name, viewer, 'read', 'issues').catch(() => null) : null,
      );
    }
    const r = resolved.get(row.repo_id);
    if (r) out.set(row.id, (await ctx.issueJsons(r, [row], viewer))[0]);
  }
  return out;
}
