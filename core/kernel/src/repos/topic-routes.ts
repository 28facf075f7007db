import { ApiError, noContent, ok, OWNER_REPO_PARAMS, ownerRepoParams, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { containsCondition } from '../db/like';
import { unixToIso } from '../users/models';
import { repoOf } from '../access/operation-access';
import { readableRepoIds } from '../access/readable-repos';
import type { RepoRouteDeps } from './repo-routes';

/**
 * Gitea's topic rules: lower-case letters, digits and dashes, starting with a letter or digit, at most 35 characters;
 * at most 25 per repository.
 */
const TOPIC = /^[a-z0-9][a-z0-9-]{0,34}$/;
const MAX_TOPICS = 25;

const TOPIC_PARAMS = ownerRepoParams({ topic: { type: 'string', maxLength: 255 } });

/** Topics: list, replace, add and remove on a repository, and search across repositories. */
export function topicOperations({ repos }: Pick<RepoRouteDeps, 'repos'>): ApiOperation[] {
  const db = () => repos.query().knex();
  const topicsOf = async (repoId: number): Promise<string[]> =>
    (await db()('repo_topics').where('repo_id', repoId).orderBy('name').select('name')).map((r: { name: string }) => r.name);

  const setTopics = async (repoId: number, topics: string[]) => {
    const normalized = [...new Set(topics.map((t) => t.trim().toLowerCase()).filter(Boolean))];
    const invalid = normalized.filter((t) => !TOPIC.test(t));
    if (invalid.length) throw ApiError.unprocessable(`invalid topics: ${invalid.join(', ')}`, { invalidTopics: invalid });
    if (normalized.length > MAX_TOPICS) throw ApiError.unprocessable(`a repository may have at most ${MAX_TOPICS} topics`);
    await db().transaction(async (trx) => {
      await trx('repo_topics').where('repo_id', repoId).delete();
      if (normalized.length) await trx('repo_topics').insert(normalized.map((name) => ({ repo_id: repoId, name })));
    });
  };

  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/topics',
      operationId: 'repoListTopics',
      tag: 'repository',
      summary: 'Get list of topics that a repository has',
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      paged: true,
      responses: { 200: 'TopicName' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        const { repo } = repoOf(req);
        const all = await topicsOf(repo.id);
        return ok({ topics: all.slice(req.paging.offset, req.paging.offset + req.paging.limit) });
      },
    },
    {
      method: 'put',
      path: '/repos/{owner}/{repo}/topics',
      operationId: 'repoUpdateTopics',
      tag: 'repository',
      summary: 'Replace list of topics for a repository',
      scopes: ['repository'],
      access: { repo: { need: 'admin' } },
      auth: 'required',
      params: OWNER_REPO_PARAMS,
      body: 'RepoTopicOptions',
      bodyRequired: true,
      responses: { 204: 'replaced' },
      handler: async (req: ApiRequest<{ topics?: string[] }, unknown, { owner: string; repo: string }>) => {
        const { repo } = repoOf(req);
        await setTopics(repo.id, req.body.topics ?? []);
        return noContent();
      },
    },
    {
      method: 'put',
      path: '/repos/{owner}/{repo}/topics/{topic}',
      operationId: 'repoAddTopic',
      tag: 'repository',
      summary: 'Add a topic to a repository',
      scopes: ['repository'],
      access: { repo: { need: 'admin' } },
      auth: 'required',
      params: TOPIC_PARAMS,
      responses: { 204: 'added' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string; topic: string }>) => {
        const { repo } = repoOf(req);
        await setTopics(repo.id, [...(await topicsOf(repo.id)), req.params.topic]);
        return noContent();
      },
    },
    {
      method: 'delete',
      path: '/repos/{owner}/{repo}/topics/{topic}',
      operationId: 'repoDeleteTopic',
      tag: 'repository',
      summary: 'Delete a topic from a repository',
      scopes: ['repository'],
      access: { repo: { need: 'admin' } },
      auth: 'required',
      params: TOPIC_PARAMS,
      responses: { 204: 'deleted' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string; topic: string }>) => {
        const { repo } = repoOf(req);
        const deleted = await db()('repo_topics').where({ repo_id: repo.id, name: req.params.topic.toLowerCase() }).delete();
        if (!deleted) throw ApiError.notFound(`topic does not exist [topic: ${req.params.topic}]`);
        return noContent();
      },
    },
    {
      method: 'get',
      path: '/topics/search',
      operationId: 'topicSearch',
      tag: 'repository',
      summary: 'Search topics by keyword',
      scopes: ['repository'],
      access: 'anyone',
      paged: true,
      query: { type: 'object', properties: { q: { type: 'string', maxLength: 255 } } },
      responses: {
        200: {
          description: 'TopicListResponse',
          schema: { type: 'object', properties: { topics: { type: 'array', items: { $ref: 'TopicResponse' } } } },
        },
      },
      handler: async (req: ApiRequest<unknown, { q?: string }>) => {
        // Counted over repositories the caller can see, so private repositories' topics do not leak.
        let query = db()('repo_topics as t').join('repositories as r', 'r.id', 't.repo_id');
        const readable = readableRepoIds(db(), req.principal);
        if (readable) query = query.whereIn('r.id', readable);
        if (req.query.q) query = query.whereRaw(...containsCondition('t.name', req.query.q));
        const rows = await query
          .groupBy('t.name')
          .orderBy('t.name')
          .select('t.name')
          .min({ id: 't.id', created: 'r.created_unix' })
          .max({ updated: 'r.updated_unix' })
          .count({ repo_count: 'r.id' })
          .offset(req.paging.offset)
          .limit(req.paging.limit);
        return ok({
          topics: rows.map((r: any) => ({
            id: Number(r.id),
            topic_name: r.name,
            repo_count: Number(r.repo_count),
            created: unixToIso(Number(r.created)),
            updated: unixToIso(Number(r.updated)),
          })),
        });
      },
    },
  ];
}
