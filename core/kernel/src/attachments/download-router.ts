import express, { type Request, type Response, type Router } from 'express';
import type { Knex } from 'knex';
import {
  ApiError,
  contentDisposition,
  isApiError,
  stream,
  type IssueDownloadCheck,
  type Principal,
  type ReleaseDownloadCheck,
  type RepositoryTarget,
} from '@hearth/plugin-api';
import { grants } from '../auth/scopes';
import { send } from '../http/operations';
import type { HearthConfig } from '../config/types';
import type { RepoService } from '../repos/repo-service';
import type { RepoUnit } from '../repos/models';
import type { UserService } from '../users/user-service';
import { resolveAccess } from '../access/operation-access';
import { AttachmentStore, attachmentInfo } from './attachment-store';

export interface AttachmentRouterDeps {
  db: Knex;
  config: HearthConfig;
  repos: RepoService;
  users: UserService;
  authenticate(req: Request): Promise<Principal | null>;
  /** The releases plugin's check (drafts for writers only); none while releases are disabled. */
  releaseCheck(): ReleaseDownloadCheck | null;
  /** The issues plugin's check (the unit guarding an issue's attachments); none while issues are disabled. */
  issueCheck(): IssueDownloadCheck | null;
}

/**
 * The browser download of an attachment, `ROOT_URL attachments/{uuid}` (Gitea's
 * browser_download_url): the repository's read access on the unit the attachment belongs to
 * (releases: and the releases plugin's check, drafts only for writers; issues or pulls);
 * streamed with Content-Length, a sanitised Content-Disposition and nosniff. Mount at '/'.
 */
export function attachmentsRouter(deps: AttachmentRouterDeps): Router {
  const store = new AttachmentStore(deps.db, deps.config);
  const router = express.Router();
  const missing = () => ApiError.notFound('attachment does not exist');

  /**
   * The attachment's repository for the caller, read access on `unit`; any refusal looks like a
   * missing attachment (the uuid names no repository).
   */
  const readable = async (repoId: number, principal: Principal | null, unit: RepoUnit): Promise<RepositoryTarget> => {
    const repo = await deps.repos.byId(repoId);
    if (!repo) throw missing();
    const access = { repo: { need: 'read', unit } } as const;
    const params = { owner: repo.owner_name, repo: repo.name };
    const target = await resolveAccess(access, params, principal, deps.repos.access, deps.users).catch((err: unknown) => {
      throw isApiError(err) && err.status === 404 ? missing() : err;
    });
    return target.repository!;
  };

  router.get('/attachments/:uuid', async (req: Request, res: Response) => {
    res.locals.route = 'site attachment';
    const principal = await deps.authenticate(req);
    if (principal && !grants(principal.scopes, 'repository', 'read')) {
      throw ApiError.forbidden('token does not have at least one of required scope(s): [read:repository]');
    }
    const uuid = String(req.params.uuid);
    const row = /^[0-9a-f-]{36}$/i.test(uuid) ? await store.byUuid(uuid.toLowerCase()) : null;
    if (!row) throw missing();
    if (row.release_id > 0) {
      const check = deps.releaseCheck();
      if (!check) throw missing();
      const repository = await readable(row.repo_id, principal, 'releases');
      if (!(await check(attachmentInfo(row), repository, principal))) throw missing();
    } else {
      // An issue's or comment's attachment: readable with the issues (or pulls) of its repository, as the issues plugin says.
      const check = deps.issueCheck();
      const unit = check && row.issue_id ? await check(attachmentInfo(row)) : null;
      if (!unit) throw missing();
      await readable(row.repo_id, principal, unit);
    }
    const blob = await store.blobs.open(row.hash_sha256);
    await store.countDownload(row);
    await send(
      res,
      stream(200, 'application/octet-stream', blob.stream, {
        'Content-Length': String(blob.size),
        'Content-Disposition': contentDisposition(row.name),
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'private, max-age=300',
      }),
    );
  });
  return router;
}
