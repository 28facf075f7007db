/**
 * Source archives at Gitea's page URL `/{owner}/{repo}/archive/{ref}.{zip,tar.gz,bundle}`: the
 * API's own archive operation called as the viewer, so a private repository's archive downloads
 * for whoever may read its code, while `/api/…` keeps refusing the session cookie.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { apiPath } from '../forge-api';
import { viewerOf } from '../page-session';
import { encodeSegments } from '../views/common';
import type { WebRoutes } from '../web-routes';

/** Headers of the API's answer a browser download needs; nothing else is copied. */
const PASSED_HEADERS = new Set(['content-length', 'content-disposition', 'etag', 'cache-control', 'last-modified']);

export function archiveRoutes({ api, pages }: WebRoutes): void {
  pages.get('/:owner/:repo/archive/*archive', async (req, res) => {
    const archive = ([] as string[]).concat(req.params.archive as unknown as string[]).join('/');
    const path = `${apiPath`/repos/${String(req.params.owner)}/${String(req.params.repo)}/archive/`}${encodeSegments(archive)}`;
    const answer = await api.download(viewerOf(req), path);
    res.status(answer.status);
    if (answer.contentType) res.type(answer.contentType);
    for (const [name, value] of Object.entries(answer.headers ?? {}))
      if (PASSED_HEADERS.has(name.toLowerCase())) res.setHeader(name, value);
    // pipeline destroys the source when the browser goes away, so no git process outlives the download.
    if (answer.body instanceof Readable) await pipeline(answer.body, res).catch(() => undefined);
    else res.end();
  });
}

/** The page URL of a source archive (`ref` a branch, tag or commit; `format` zip or tar.gz). */
export function archiveHref(fullName: string, ref: string, format: 'zip' | 'tar.gz'): string {
  return `/${fullName.split('/').map(encodeURIComponent).join('/')}/archive/${encodeSegments(ref)}.${format}`;
}
