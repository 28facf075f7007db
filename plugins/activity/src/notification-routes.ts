import { ok, OWNER_REPO_PARAMS, toNumber, type ApiOperation, type ApiRequest, type JsonSchema } from '@hearth/plugin-api';
import { list, type ActivityDeps } from './activity-context';
import { STATUS } from './recorder';
import { notificationService, type ListQuery, type ReadQuery } from './notification-service';

type RepoParams = { owner: string; repo: string };

const num = toNumber;
const STATUS_NAMES = ['unread', 'read', 'pinned'];
const STATUS_TYPES = {
  type: 'array',
  items: { type: 'string', enum: STATUS_NAMES },
  description: 'notification statuses: unread, read and/or pinned',
};
const LIST_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    all: { type: 'boolean', description: 'If true, show notifications marked as read. Default value is false' },
    'status-types': {
      ...STATUS_TYPES,
      description:
        'Show notifications with the provided status types. Options are: unread, read and/or pinned. Defaults to unread & pinned.',
    },
    'subject-type': {
      type: 'array',
      items: { type: 'string', enum: ['issue', 'pull', 'commit', 'repository'] },
      description: 'filter notifications by subject type',
    },
    since: {
      type: 'string',
      maxLength: 64,
      description: 'Only show notifications updated after the given time. This is a timestamp in RFC 3339 format',
    },
    before: {
      type: 'string',
      maxLength: 64,
      description: 'Only show notifications updated before the given time. This is a timestamp in RFC 3339 format',
    },
  },
};
const READ_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    last_read_at: {
      type: 'string',
      maxLength: 64,
      description: 'Describes the last point that notifications were checked. Anything updated since this time will not be updated.',
    },
    all: { type: 'string', maxLength: 5, description: 'If true, mark all notifications on this repo. Default value is false' },
    'status-types': {
      ...STATUS_TYPES,
      description: 'Mark notifications with the provided status types. Options are: unread, read and/or pinned. Defaults to unread.',
    },
    'to-status': { type: 'string', enum: STATUS_NAMES, description: 'Status to mark notifications as, Defaults to read.' },
  },
};
const THREAD_PARAMS: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of notification thread' } },
  required: ['id'],
};

/** Notification threads of the caller (`/notifications…`, `/repos/{owner}/{repo}/notifications`); recorder.ts writes them. */
export function notificationOperations(deps: ActivityDeps): ApiOperation[] {
  const { db } = deps;
  const { threadJsons, threadQuery, listThreads, markThreads, threadOf } = notificationService(deps);

  const notification = {
    tag: 'notification',
    scopes: ['notification'] as ['notification'],
    auth: 'required' as const,
    access: 'caller' as const,
  };
  return [
    // notifications
    {
      ...notification,
      method: 'get',
      path: '/notifications',
      operationId: 'notifyGetList',
      summary: "List users's notification threads",
      query: LIST_QUERY,
      paged: true,
      responses: { 200: list('NotificationThread') },
      handler: async (req: ApiRequest<unknown, ListQuery>) => listThreads(req),
    },
    {
      ...notification,
      method: 'put',
      path: '/notifications',
      operationId: 'notifyReadList',
      summary: 'Mark notification threads as read, pinned or unread',
      query: READ_QUERY,
      responses: { 205: list('NotificationThread') },
      handler: async (req: ApiRequest<unknown, ReadQuery>) => markThreads(req),
    },
    {
      ...notification,
      method: 'get',
      path: '/notifications/new',
      operationId: 'notifyNewAvailable',
      summary: 'Check if unread notifications exist',
      responses: { 200: 'NotificationCount' },
      handler: async (req) => {
        const [{ n }] = await threadQuery(req).where('n.status', STATUS.unread).count({ n: '*' });
        return ok({ new: num(n) });
      },
    },
    {
      ...notification,
      method: 'get',
      path: '/notifications/threads/{id}',
      operationId: 'notifyGetThread',
      summary: 'Get notification thread by ID',
      params: THREAD_PARAMS,
      responses: { 200: 'NotificationThread', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) =>
        ok((await threadJsons([await threadOf(req)], req.principal))[0]),
    },
    {
      ...notification,
      method: 'patch',
      path: '/notifications/threads/{id}',
      operationId: 'notifyReadThread',
      summary: 'Mark notification thread as read by ID',
      params: THREAD_PARAMS,
      query: {
        type: 'object',
        properties: {
          'to-status': { type: 'string', enum: STATUS_NAMES, default: 'read', description: 'Status to mark notifications as' },
        },
      },
      responses: { 205: 'NotificationThread', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { 'to-status'?: string }, { id: number }>) => {
        const t = await threadOf(req);
        const status = STATUS[(req.query['to-status'] ?? 'read') as keyof typeof STATUS];
        await db('notification').where('id', t.id).update({ status });
        return { status: 205, body: (await threadJsons([{ ...t, status }], req.principal))[0] };
      },
    },
    {
      ...notification,
      scopes: ['notification', 'repository'],
      method: 'get',
      path: '/repos/{owner}/{repo}/notifications',
      operationId: 'notifyGetRepoList',
      summary: "List users's notification threads on a specific repo",
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      query: LIST_QUERY,
      paged: true,
      responses: { 200: list('NotificationThread'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, ListQuery, RepoParams>) => listThreads(req, req.target.repository!.id),
    },
    {
      ...notification,
      scopes: ['notification', 'repository'],
      method: 'put',
      path: '/repos/{owner}/{repo}/notifications',
      operationId: 'notifyReadRepoList',
      summary: 'Mark notification threads as read, pinned or unread on a specific repo',
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      query: READ_QUERY,
      responses: { 205: list('NotificationThread'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, ReadQuery, RepoParams>) => markThreads(req, req.target.repository!.id),
    },
  ];
}
