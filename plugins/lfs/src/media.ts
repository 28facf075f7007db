import { contentDisposition, stream, type ApiResponse, type MediaRequest } from '@hearth/plugin-api';
import type { LfsObjects, ObjectRef } from './objects';

/** The pointer file git-lfs commits in place of a tracked file (spec v1): version, oid, size. */
const POINTER =
  /^version https:\/\/git-lfs\.github\.com\/spec\/v1\n(?:[a-z0-9.-]+ [^\n]*\n)*?oid sha256:([0-9a-f]{64})\n(?:[a-z0-9.-]+ [^\n]*\n)*?size (\d{1,15})\n/;

/** The object a pointer file names, or null when the blob is not a pointer. */
export function parsePointer(content: Buffer): ObjectRef | null {
  const match = POINTER.exec(content.toString('utf8'));
  return match ? { oid: match[1], size: Number(match[2]) } : null;
}

/**
 * `GET /repos/{owner}/{repo}/media/{path}` (`repository.media`): a pointer whose object this
 * repository holds is answered with the object's bytes — typed as a download, never as active
 * content on the forge's origin. Other blobs, and pointers to missing objects, fall through to the raw file.
 */
export async function mediaAnswer(objects: LfsObjects, request: MediaRequest): Promise<ApiResponse | undefined> {
  const pointer = parsePointer(request.content);
  if (!pointer) return undefined;
  const stored = await objects.stored(request.repository.id, pointer.oid);
  if (!stored || stored.size !== pointer.size) return undefined;
  const opened = await objects.open(stored.oid);
  const name = request.path.split('/').pop() ?? stored.oid;
  return stream(200, 'application/octet-stream', opened.stream, {
    'Content-Length': String(stored.size),
    'Content-Disposition': contentDisposition(name),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    ETag: `"${stored.oid}"`,
    'Cache-Control': 'private, max-age=300',
  });
}
