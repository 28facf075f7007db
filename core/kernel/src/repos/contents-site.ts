import express, { type Request, type Response, type Router } from 'express';
import { ApiError, type Principal } from '@hearth/plugin-api';
import { grants } from '../auth/scopes';
import { send } from '../http/operations';
import { resolveRef } from './revisions';
import { rawTarget, refPrefixTarget, serveRaw } from './contents-raw';
import { assertValidTreePath } from './names';
import type { RepoService } from './repo-service';

export interface ContentsSiteDeps {
  repos: RepoService;
  authenticate(req: Request): Promise<Principal | null>;
}

/**
 * The site's raw links, the `download_url` of every ContentsResponse:
 * `/{owner}/{repo}/raw/{branch|tag|commit}/{ref}/{path}` (and `/media/…`), plus Gitea's legacy
 * `/{owner}/{repo}/raw/{ref-or-path}`. Same access rule, scope check and safe headers as the API's
 * raw route. Mounted at '/' next to git smart HTTP.
 */
export function contentsSiteRouter(deps: ContentsSiteDeps): Router {
  const router = express.Router();
  const handler = async (req: Request, res: Response) => {
    res.locals.route = 'site raw';
    const principal = await deps.authenticate(req);
    if (principal && !grants(principal.scopes, 'repository', 'read')) {
      throw ApiError.forbidden('token does not have at least one of required scope(s): [read:repository]');
    }
    const resolved = await deps.repos.access.resolveRepo(String(req.params.owner), String(req.params.repo), principal, 'read', 'code');
    const rest = req.params.rest as unknown as string[] | string;
    const clean = assertValidTreePath(Array.isArray(rest) ? rest.join('/') : rest);
    const slash = clean.indexOf('/');
    const kind = slash > 0 ? clean.slice(0, slash) : '';
    const after = clean.slice(slash + 1);
    let target;
    if (kind === 'branch' || kind === 'tag') {
      target = await refPrefixTarget(resolved.gitDir, after, [kind]);
      if (!target) throw ApiError.notFound(`${kind} does not exist`);
    } else if (kind === 'commit') {
      const cut = after.indexOf('/');
      const found = cut > 0 ? await resolveRef(resolved.gitDir, after.slice(0, cut)) : null;
      if (!found || found.refType !== 'commit') throw ApiError.notFound('commit does not exist');
      target = { ref: found, path: after.slice(cut + 1) };
    } else target = await rawTarget(resolved, clean, undefined);
    const headers = req.headers['if-none-match'];
    await send(res, await serveRaw(resolved, target, Array.isArray(headers) ? headers.join(',') : headers));
  };
  router.get('/:owner/:repo/raw/*rest', handler);
  router.get('/:owner/:repo/media/*rest', handler);
  return router;
}
