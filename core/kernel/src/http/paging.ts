import type { ApiRequest, ApiResponse } from '@hearth/plugin-api';

/** Query parameters never echoed into Link headers (they carry credentials). */
const SECRET_PARAMS = ['token', 'access_token', 'sudo'];

/**
 * 200 with the page of `items`, `X-Total-Count`, and Gitea's `Link` header (next, last, first,
 * prev) so clients can walk every page.
 */
export function pagedResponse(req: ApiRequest, items: unknown[], total: number, rootUrl: string): ApiResponse {
  const { page, limit } = req.paging;
  const lastPage = Math.max(1, Math.ceil(total / limit));
  const base = new URL(req.raw.originalUrl.replace(/^\/+/, ''), rootUrl);
  for (const name of SECRET_PARAMS) base.searchParams.delete(name);
  const link = (p: number, rel: string) => {
    base.searchParams.set('page', String(p));
    base.searchParams.set('limit', String(limit));
    return `<${base.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < lastPage) links.push(link(page + 1, 'next'), link(lastPage, 'last'));
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  const headers: Record<string, string> = {
    'X-Total-Count': String(total),
    'Access-Control-Expose-Headers': 'X-Total-Count, Link',
  };
  if (links.length) headers.Link = links.join(',');
  return { status: 200, body: items, headers };
}
