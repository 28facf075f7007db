import fsp from 'node:fs/promises';
import {
  ApiError,
  ownerRepoParams,
  parseByteRange,
  stream,
  type ApiOperation,
  type ApiRequest,
  type ApiResponse,
  type JsonSchema,
} from '@hearth/plugin-api';
import { READ_CODE, type GitRouteDeps } from './route-deps';
import { repoOf } from '../access/operation-access';
import { ArchiveCache, archiveDisposition, etagMatches, parseArchiveName } from './archive-service';
import { COMPLETE_ID } from './status-git';
import { resolveCommit } from './revisions';

type RepoParams = { owner: string; repo: string };

const ARCHIVE_PARAMS: JsonSchema = ownerRepoParams({
  archive: {
    type: 'string',
    minLength: 1,
    maxLength: 1024,
    description: 'the git reference for download with attached archive format (e.g. master.zip)',
  },
});

/** Repository archives (zip, tar.gz or git bundle), made per commit and cached. */
export function archiveOperations({ config }: GitRouteDeps): ApiOperation[] {
  const archives = new ArchiveCache(config.server.DATA_DIR);
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/archive/{archive*}',
      operationId: 'repoGetArchive',
      tag: 'repository',
      summary: 'Get an archive of a repository',
      scopes: ['repository'],
      access: READ_CODE,
      params: ARCHIVE_PARAMS,
      responses: {
        200: { description: 'the archive (zip, tar.gz or git bundle)' },
        206: { description: 'the requested byte range of the archive' },
        400: 'APIError',
        416: { description: 'the byte range lies outside the archive' },
      },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams & { archive: string }>) => {
        const resolved = repoOf(req);
        const { ref, format, contentType } = parseArchiveName(req.params.archive);
        const repo = { id: resolved.repo.id, name: resolved.repo.name };
        // A complete commit id whose archive is cached is served without running git at all.
        const lowered = ref.toLowerCase();
        const cached = COMPLETE_ID.test(lowered) ? archives.existing(repo, lowered, format) : null;
        const commit = cached ? lowered : await resolveCommit(resolved.gitDir, ref, 'ref');
        const file = cached ?? (await archives.ensure(repo, resolved.gitDir, commit, format));
        const filename = `${resolved.repo.name}-${ref.replace(/\//g, '-')}.${format}`;
        return serveFile(req, file, {
          contentType,
          etag: `"${commit}.${format === 'bundle' ? '' : `${resolved.repo.name}.`}${format}"`,
          disposition: archiveDisposition(filename),
          cacheControl: resolved.repo.is_private ? 'private, no-cache' : 'no-cache',
        });
      },
    },
  ];
}

/**
 * Serve a file with conditional and single-range support: `If-None-Match` → 304; `Range`
 * (honoured unless an `If-Range` names another entity) → 206 with exactly those bytes, or 416
 * when it selects none; otherwise 200. HEAD gets the same headers and no body. The file is opened
 * once, so a concurrent replacement of the cache file cannot mix two versions in one answer.
 */
async function serveFile(
  req: ApiRequest,
  file: string,
  meta: { contentType: string; etag: string; disposition: string; cacheControl: string },
): Promise<ApiResponse> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw ApiError.notFound('archive does not exist');
    throw err;
  }
  let streaming = false;
  try {
    const { size } = await handle.stat();
    const headers: Record<string, string> = {
      'Accept-Ranges': 'bytes',
      ETag: meta.etag,
      'Cache-Control': meta.cacheControl,
      'Content-Disposition': meta.disposition,
      'Content-Type': meta.contentType,
    };
    const head = req.raw.method === 'HEAD';
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(',') : value;
    };
    if (etagMatches(header('if-none-match'), meta.etag, true))
      return { status: 304, headers: { ETag: meta.etag, 'Cache-Control': meta.cacheControl } };

    const ifRange = header('if-range');
    const range = ifRange === undefined || etagMatches(ifRange, meta.etag, false) ? parseByteRange(header('range'), size) : null;
    if (range === 'unsatisfiable') {
      throw new ApiError(416, `range not satisfiable: the archive has ${size} bytes`, undefined, {
        'Accept-Ranges': 'bytes',
        'Content-Range': `bytes */${size}`,
        ETag: meta.etag,
      });
    }
    const status = range ? 206 : 200;
    const start = range ? range.start : 0;
    const end = range ? range.end : size - 1;
    headers['Content-Length'] = String(Math.max(0, end - start + 1));
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    if (head || size === 0) return { status, headers };
    streaming = true;
    return stream(status, meta.contentType, handle.createReadStream({ start, end, autoClose: true }), headers);
  } finally {
    if (!streaming) await handle.close();
  }
}
