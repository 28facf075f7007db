import { actsAsAdmin, nowUnix, toBoolean, toNumber, ok, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { whereReadable, type ActivityDeps } from './activity-context';

/** Gitea groups contributions in 15-minute buckets, so a client can shift them to any time zone (UTC+5:30, +12:45, …). */
const BUCKET = 900;
const YEAR = 31536000;

/**
 * Gitea 1.20's user heatmap: the actions the user performed in the last year, in repositories the
 * caller may read, counted per 15-minute bucket; empty when the user keeps their activity private
 * (unless the caller is that user or a site admin). Reads the activity rows this plugin records.
 */
export function heatmapOperations(deps: ActivityDeps): ApiOperation[] {
  const { db } = deps;
  return [
    {
      method: 'get',
      path: '/users/{username}/heatmap',
      operationId: 'userGetHeatmapData',
      tag: 'user',
      summary: "Get a user's heatmap",
      scopes: ['user'],
      access: { user: 'visible' },
      params: {
        type: 'object',
        properties: { username: { type: 'string', maxLength: 255, description: 'username of user to get' } },
        required: ['username'],
      },
      responses: {
        200: { description: 'UserHeatmapData', schema: { type: 'array', items: { $ref: 'UserHeatmapData' } } },
        404: 'APIError',
      },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => {
        const user = req.target.owner!;
        const self = Boolean(req.principal && !req.principal.publicOnly && req.principal.user.id === user.id);
        if (!self && !actsAsAdmin(req.principal)) {
          const row = await db('users').where('id', user.id).first('keep_activity_private');
          if (row && toBoolean(row.keep_activity_private)) return ok([]);
        }
        // `created_unix - created_unix % 900`: integer arithmetic on every database (MySQL's `/` is decimal).
        // The width is written into the SQL (a constant): PostgreSQL matches GROUP BY to the select list by text, placeholders too.
        const bucket = `(a.created_unix - (a.created_unix % ${BUCKET}))`;
        const q = db('activities as a')
          .where('a.act_user_id', user.id)
          .where('a.created_unix', '>', nowUnix() - YEAR)
          .select({ timestamp: db.raw(bucket) })
          .count({ contributions: '*' })
          .groupByRaw(bucket)
          .orderBy('timestamp');
        whereReadable(deps, q, 'a.repo_id', req.principal);
        const rows = await q;
        return ok(rows.map((r: any) => ({ timestamp: toNumber(r.timestamp), contributions: toNumber(r.contributions) })));
      },
    },
  ];
}
