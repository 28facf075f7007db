import {
  ApiError,
  created,
  noContent,
  ok,
  OWNER_REPO_PARAMS,
  ownerRepoParams,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
} from '@hearth/plugin-api';
import { nowUnix } from '../users/models';
import { ZERO_ID, gitText, runGit } from './git';
import { unsignedVerification } from './commit-json';
import { unixToIso } from '../users/models';
import { gitRepoOf, goDate, listRefs, readRef, type GitDataRepo } from './git-data-git';
import { escapeSegments, userIdentity, type RepoLinks } from './links';
import { batchCheck, notFoundAs, resolveCommit } from './revisions';
import { assertValidRefName, isObjectId, isValidRefName } from './names';
import { READ_CODE, WRITE_CODE, type GitRouteDeps } from './route-deps';

type Params = { owner: string; repo: string; tag: string };

interface CreateTagBody {
  tag_name: string;
  target?: string;
  message?: string;
}

const TAG_PARAMS: JsonSchema = ownerRepoParams({
  tag: { type: 'string', minLength: 1, maxLength: 255, description: 'name of the tag (may contain /)' },
});

const TAGS = 'refs/tags/';

/** A tag ref with what Gitea's `Tag` object shows. */
interface TagInfo {
  name: string;
  /** The tag object's id (annotated) or the commit's (lightweight). */
  id: string;
  commit: string;
  /** Tagger date (annotated) or committer date (lightweight). */
  date: string;
  /** The tag message without its signature (annotated) or the commit message (lightweight). */
  message: string;
}

const TAG_FIELDS = [
  '%(refname)',
  '%(objecttype)',
  '%(objectname)',
  '%(*objectname)',
  '%(creatordate:iso-strict)',
  '%(contents)',
  '%(contents:signature)',
];

/** Details of the named tag refs (full `refs/tags/…` names), in one for-each-ref. */
async function readTags(gitDir: string, refs: string[]): Promise<Map<string, TagInfo>> {
  const found = new Map<string, TagInfo>();
  if (refs.length === 0) return found;
  const { stdout } = await runGit(['for-each-ref', `--format=${TAG_FIELDS.join('%00')}%00`, '--', ...refs], { gitDir });
  const parts = stdout.toString('utf8').split('\0');
  const wanted = new Set(refs);
  for (let i = 0; i + TAG_FIELDS.length <= parts.length; i += TAG_FIELDS.length) {
    // Each record ends with the NUL we asked for plus for-each-ref's newline, which opens the next.
    const [rawRef, type, id, peeled, date, contents, signature] = parts.slice(i, i + TAG_FIELDS.length);
    const ref = rawRef.replace(/^\n/, '');
    if (!ref.startsWith(TAGS)) break;
    if (!wanted.has(ref)) continue;
    const message = signature && contents.endsWith(signature) ? contents.slice(0, contents.length - signature.length) : contents;
    found.set(ref, { name: ref.slice(TAGS.length), id, commit: type === 'tag' && peeled ? peeled : id, date, message });
  }
  return found;
}

function tagToApi(links: RepoLinks, tag: TagInfo): Record<string, unknown> {
  const archive = `${links.html}/archive/${escapeSegments(tag.name)}`;
  return {
    name: tag.name,
    message: tag.message.trim(),
    id: tag.id,
    commit: { url: `${links.api}/git/commits/${tag.commit}`, sha: tag.commit, created: goDate(tag.date) },
    zipball_url: `${archive}.zip`,
    tarball_url: `${archive}.tar.gz`,
  };
}

async function requireTag(r: GitDataRepo, name: string): Promise<TagInfo> {
  const tag = isValidRefName(name) ? (await readTags(r.gitDir, [`${TAGS}${name}`])).get(`${TAGS}${name}`) : undefined;
  if (!tag) throw ApiError.notFound(`tag doesn't exist: ${name}`);
  return tag;
}

/** The parsed header and message of a raw tag object. */
interface RawTag {
  object: string;
  type: string;
  tag: string;
  tagger: { name: string; email: string; date: string } | null;
  message: string;
}

const SIGNATURE_STARTS = ['-----BEGIN PGP SIGNATURE-----', '-----BEGIN SSH SIGNATURE-----', '-----BEGIN SIGNED MESSAGE-----'];

function parseTag(raw: string): RawTag {
  const split = raw.indexOf('\n\n');
  const header = split < 0 ? raw : raw.slice(0, split);
  let message = split < 0 ? '' : raw.slice(split + 2);
  const tag: RawTag = { object: '', type: '', tag: '', tagger: null, message: '' };
  for (const line of header.split('\n')) {
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === 'object') tag.object = value;
    else if (key === 'type') tag.type = value;
    else if (key === 'tag') tag.tag = value;
    else if (key === 'tagger') {
      const m = /^(.*?) ?<([^>]*)> (\d+) ([+-]\d{4})$/.exec(value);
      if (m) tag.tagger = { name: m[1], email: m[2], date: unixToIso(Number(m[3])) };
    }
  }
  for (const start of SIGNATURE_STARTS) {
    const at = message.lastIndexOf(start);
    if (at >= 0 && (at === 0 || message[at - 1] === '\n')) {
      message = message.slice(0, at);
      break;
    }
  }
  tag.message = message;
  return tag;
}

/** Tags: list, get, create (lightweight, or annotated with a message, tagged by the caller), delete; annotated tag objects. */
export function tagOperations(deps: GitRouteDeps): ApiOperation[] {
  const { repos, users, config } = deps;
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/tags',
      operationId: 'repoListTags',
      tag: 'repository',
      summary: "List a repository's tags",
      scopes: ['repository'],
      access: READ_CODE,
      params: OWNER_REPO_PARAMS,
      paged: true,
      responses: { 200: { description: 'TagList', schema: { type: 'array', items: { $ref: 'Tag' } } } },
      handler: async (req: ApiRequest<unknown, unknown, Params>) => {
        const r = gitRepoOf(deps, req);
        // Newest first (tagger date, or commit date for lightweight tags), then by name.
        const all = await listRefs(r.gitDir, [TAGS], { sort: ['-refname', '-creatordate'] });
        const page = all.slice(req.paging.offset, req.paging.offset + req.paging.limit).map((t) => t.ref);
        const details = await readTags(r.gitDir, page);
        const items = page.flatMap((ref) => (details.has(ref) ? [tagToApi(r.links, details.get(ref)!)] : []));
        return deps.http.paged(req, items, all.length);
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/tags/{tag*}',
      operationId: 'repoGetTag',
      tag: 'repository',
      summary: 'Get the tag of a repository by tag name',
      scopes: ['repository'],
      access: READ_CODE,
      params: TAG_PARAMS,
      responses: { 200: 'Tag', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, Params>) => {
        const r = gitRepoOf(deps, req);
        return ok(tagToApi(r.links, await requireTag(r, req.params.tag)));
      },
    },
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/tags',
      operationId: 'repoCreateTag',
      tag: 'repository',
      summary: 'Create a new git tag in a repository',
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: OWNER_REPO_PARAMS,
      body: 'CreateTagOption',
      bodyRequired: true,
      responses: { 201: 'Tag', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateTagBody, unknown, Params>) => {
        const r = gitRepoOf(deps, req);
        const { tag_name: name, message } = req.body;
        assertValidRefName(name, 'tag');
        if (message?.includes('\0')) throw ApiError.unprocessable('body.message: a tag message cannot contain NUL characters');
        const target = req.body.target || r.resolved.repo.default_branch;
        const commit = await notFoundAs(resolveCommit(r.gitDir, target, 'target'), `target not found [target: ${target}]`);
        const ref = `${TAGS}${name}`;
        if (await readRef(r.gitDir, ref)) throw ApiError.conflict(`tag already exists [name: ${name}]`);

        let object = commit;
        if (message && message.trim()) {
          const tagger = userIdentity(req.principal!.user, await users.rowOf(req.principal!), config.service.NO_REPLY_ADDRESS);
          const body =
            `object ${commit}\ntype commit\ntag ${name}\ntagger ${tagger.name} <${tagger.email}> ` +
            `${nowUnix()} +0000\n\n${message.endsWith('\n') ? message : `${message}\n`}`;
          object = await gitText(['mktag'], { gitDir: r.gitDir, input: body });
        }
        if (!(await repos.updateRef(r.resolved.repo, ref, ZERO_ID, object, req.principal!.user, 'hearth: tag created through the API'))) {
          throw ApiError.conflict(`tag already exists or conflicts with an existing tag [name: ${name}]`);
        }
        return created(tagToApi(r.links, await requireTag(r, name)));
      },
    },
    {
      method: 'delete',
      path: '/repos/{owner}/{repo}/tags/{tag*}',
      operationId: 'repoDeleteTag',
      tag: 'repository',
      summary: "Delete a repository's tag by name",
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: TAG_PARAMS,
      responses: { 204: 'deleted', 404: 'APIError', 409: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, Params>) => {
        const r = gitRepoOf(deps, req);
        const name = req.params.tag;
        const ref = isValidRefName(name) ? await readRef(r.gitDir, `${TAGS}${name}`) : null;
        if (!ref) throw ApiError.notFound(`tag doesn't exist: ${name}`);
        if (
          !(await repos.updateRef(r.resolved.repo, ref.ref, ref.id, ZERO_ID, req.principal!.user, 'hearth: tag deleted through the API'))
        ) {
          throw ApiError.conflict(`the tag changed while it was being deleted; try again [name: ${name}]`);
        }
        return noContent();
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/git/tags/{sha}',
      operationId: 'GetAnnotatedTag',
      tag: 'repository',
      summary: 'Gets the tag object of an annotated tag (not lightweight tags)',
      scopes: ['repository'],
      access: READ_CODE,
      params: ownerRepoParams({ sha: { type: 'string', maxLength: 64, description: 'sha of the tag object' } }),
      responses: { 200: 'AnnotatedTag', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string; sha: string }>) => {
        const r = gitRepoOf(deps, req);
        const sha = req.params.sha;
        if (!isObjectId(sha)) throw ApiError.unprocessable(`sha must be the id of an annotated tag object [sha: ${sha}]`);
        const [info] = await batchCheck(r.gitDir, [sha]);
        if (!info || info.type !== 'tag') throw ApiError.notFound(`annotated tag does not exist [sha: ${sha}]`);
        const [raw, peeled] = await Promise.all([
          runGit(['cat-file', 'tag', info.id], { gitDir: r.gitDir }),
          batchCheck(r.gitDir, [`${info.id}^{commit}`]),
        ]);
        const tag = parseTag(raw.stdout.toString('utf8'));
        const commit = peeled[0];
        const object = commit
          ? { sha: commit.id, type: 'commit', url: `${r.links.api}/git/commits/${commit.id}` }
          : { sha: tag.object, type: tag.type, url: `${r.links.api}/git/${tag.type}s/${tag.object}` };
        return ok({
          tag: tag.tag,
          sha: info.id,
          url: `${r.links.api}/git/tags/${info.id}`,
          message: tag.message,
          tagger: tag.tagger,
          object,
          verification: unsignedVerification(),
        });
      },
    },
  ];
}
