import {
  ApiError,
  created,
  isApiError,
  ok,
  OWNER_REPO_PARAMS,
  ownerRepoParams,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
} from '@hearth/plugin-api';
import { assertRefChange } from '../protection/ref-protection';
import { changeFiles, clientTreePath, type ChangeFilesInput, type FilesResponse } from './contents-files';
import { readBlobs } from './contents-git';
import { patchOperations } from './contents-diffpatch';
import { branchCommit, resolveRef } from './revisions';
import { definitionJson, parseEditorConfig, propertiesFor } from './contents-editorconfig';
import { languageStats } from './contents-languages';
import { rawTarget, serveRaw } from './contents-raw';
import { getContents } from './contents-read';
import { repoLinks } from './links';
import { assertValidTreePath } from './names';
import { repoOf } from '../access/operation-access';
import { READ_CODE, WRITE_CODE, type GitRouteDeps } from './route-deps';

type RepoParams = { owner: string; repo: string };
type FileParams = RepoParams & { filepath: string };
type RefQuery = { ref?: string };

const FILE_PARAMS: JsonSchema = ownerRepoParams({
  filepath: { type: 'string', maxLength: 4096, description: 'path of the file or directory in the repository' },
});

const REF_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    ref: { type: 'string', maxLength: 255, description: "The name of the commit/branch/tag. Default the repository's default branch" },
  },
};

const RAW_RESPONSE = { description: 'the raw file content', contentType: 'application/octet-stream' };

/**
 * The contents API (section category: repository): reading files and directories at a ref,
 * changing files through ONE commit path (`POST /contents` with ChangeFilesOptions; the
 * single-file POST/PUT/DELETE are thin wrappers), raw and media downloads, language statistics
 * and EditorConfig definitions. Everything needs the code unit.
 */
export function contentsOperations(deps: GitRouteDeps): ApiOperation[] {
  return [...contentsReadOperations(deps), ...contentsChangeOperations(deps), ...rawFileOperations(deps), ...repoCodeInfoOperations()];
}

/** Change files through the one commit path, after the branch protection check (the contents API's only write). */
async function changeContents(
  { repos, users, config }: GitRouteDeps,
  req: ApiRequest<unknown, unknown, RepoParams>,
  input: ChangeFilesInput,
): Promise<FilesResponse> {
  const resolved = repoOf(req);
  const principal = req.principal!;
  // A protected branch takes file changes only from those its rule lets push (Gitea's VerifyBranchProtection).
  const newBranch = input.new_branch?.trim();
  const target = newBranch || input.branch?.trim() || resolved.repo.default_branch;
  await assertRefChange(repos, resolved.repo, principal, `refs/heads/${target}`, newBranch ? 'create' : 'update');
  return changeFiles(
    {
      repos,
      urls: repoLinks(config, resolved.owner.name, resolved.repo.name),
      maxBlobSize: config.api.DEFAULT_MAX_BLOB_SIZE,
      noReplyAddress: config.service.NO_REPLY_ADDRESS,
    },
    resolved,
    principal.user,
    await users.rowOf(principal),
    input,
  );
}

/** The options shared by the single-file calls, as ChangeFilesOptions minus `files`. */
function commonChangeOptions(body: Record<string, any>): Omit<ChangeFilesInput, 'files'> {
  return {
    branch: body.branch,
    new_branch: body.new_branch,
    message: body.message,
    author: body.author,
    committer: body.committer,
    dates: body.dates,
    signoff: body.signoff,
  };
}

/** A single-file call's answer: the one file of a FilesResponse. */
function singleFile(res: FilesResponse) {
  return { content: res.files[0] ?? null, commit: res.commit, verification: res.verification };
}

/** A raw or media download of a file at a ref. */
async function rawFile(req: ApiRequest<unknown, RefQuery, FileParams>) {
  const resolved = repoOf(req);
  const target = await rawTarget(resolved, assertValidTreePath(req.params.filepath), req.query.ref);
  return serveRaw(resolved, target, req.headers['if-none-match']);
}

/** Reading the root directory, and any file or directory, at a ref. */
function contentsReadOperations({ config }: GitRouteDeps): ApiOperation[] {
  const maxBlobSize = () => config.api.DEFAULT_MAX_BLOB_SIZE;
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/contents',
      operationId: 'repoGetContentsList',
      tag: 'repository',
      summary: 'Gets the metadata of all the entries of the root dir',
      scopes: ['repository'],
      access: READ_CODE,
      params: OWNER_REPO_PARAMS,
      query: REF_QUERY,
      responses: {
        200: { description: 'ContentsListResponse', schema: { type: 'array', items: { $ref: 'ContentsResponse' } } },
        404: 'APIError',
      },
      handler: async (req: ApiRequest<unknown, RefQuery, RepoParams>) => {
        const resolved = repoOf(req);
        return ok(
          await getContents(resolved, repoLinks(config, resolved.owner.name, resolved.repo.name), maxBlobSize(), '', req.query.ref),
        );
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/contents/{filepath*}',
      operationId: 'repoGetContents',
      tag: 'repository',
      summary: 'Gets the metadata and contents (if a file) of an entry in a repository, or a list of entries if a dir',
      scopes: ['repository'],
      access: READ_CODE,
      params: FILE_PARAMS,
      query: REF_QUERY,
      responses: { 200: 'ContentsResponse', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, RefQuery, FileParams>) => {
        const resolved = repoOf(req);
        return ok(
          await getContents(
            resolved,
            repoLinks(config, resolved.owner.name, resolved.repo.name),
            maxBlobSize(),
            clientTreePath(req.params.filepath),
            req.query.ref,
          ),
        );
      },
    },
  ];
}

/** Changing files: several in one commit, or one file created, updated or deleted. */
function contentsChangeOperations(deps: GitRouteDeps): ApiOperation[] {
  const change = (req: ApiRequest<unknown, unknown, RepoParams>, input: ChangeFilesInput) => changeContents(deps, req, input);
  return [
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/contents',
      operationId: 'repoChangeFiles',
      tag: 'repository',
      summary: 'Modify multiple files in a repository',
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: OWNER_REPO_PARAMS,
      body: 'ChangeFilesOptions',
      bodyRequired: true,
      responses: { 201: 'FilesResponse', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<ChangeFilesInput, unknown, RepoParams>) => created(await change(req, req.body)),
    },
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/diffpatch',
      operationId: 'repoApplyDiffPatch',
      tag: 'repository',
      summary: 'Apply diff patch to repository',
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: OWNER_REPO_PARAMS,
      body: 'ApplyDiffPatchFileOptions',
      bodyRequired: true,
      responses: { 200: 'FileResponse', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<Record<string, any>, unknown, RepoParams>) => {
        const { gitDir, repo } = repoOf(req);
        const branch = req.body.branch?.trim() || repo.default_branch;
        const base = await branchCommit(gitDir, branch);
        if (!base) throw ApiError.notFound(`branch does not exist [name: ${branch}]`);
        const files = await patchOperations(gitDir, base, req.body.content);
        // As Gitea: the commit, and no file content (the patch may touch many files).
        const res = await change(req, { ...commonChangeOptions(req.body), branch, files });
        return ok({ content: null, commit: res.commit, verification: res.verification });
      },
    },
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/contents/{filepath*}',
      operationId: 'repoCreateFile',
      tag: 'repository',
      summary: 'Create a file in a repository',
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: FILE_PARAMS,
      body: 'CreateFileOptions',
      bodyRequired: true,
      responses: { 201: 'FileResponse', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<Record<string, any>, unknown, FileParams>) =>
        created(
          singleFile(
            await change(req, {
              ...commonChangeOptions(req.body),
              files: [{ operation: 'create', path: req.params.filepath, content: req.body.content }],
            }),
          ),
        ),
    },
    {
      method: 'put',
      path: '/repos/{owner}/{repo}/contents/{filepath*}',
      operationId: 'repoUpdateFile',
      tag: 'repository',
      summary: 'Update a file in a repository',
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: FILE_PARAMS,
      body: 'UpdateFileOptions',
      bodyRequired: true,
      responses: { 200: 'FileResponse', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<Record<string, any>, unknown, FileParams>) =>
        ok(
          singleFile(
            await change(req, {
              ...commonChangeOptions(req.body),
              files: [
                {
                  operation: 'update',
                  path: req.params.filepath,
                  content: req.body.content,
                  sha: req.body.sha,
                  from_path: req.body.from_path,
                },
              ],
            }),
          ),
        ),
    },
    {
      method: 'delete',
      path: '/repos/{owner}/{repo}/contents/{filepath*}',
      operationId: 'repoDeleteFile',
      tag: 'repository',
      summary: 'Delete a file in a repository',
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: FILE_PARAMS,
      body: 'DeleteFileOptions',
      bodyRequired: true,
      responses: { 200: 'FileDeleteResponse', 400: 'APIError', 403: 'APIError', 404: 'APIError', 409: 'APIError' },
      handler: async (req: ApiRequest<Record<string, any>, unknown, FileParams>) => {
        try {
          const res = await change(req, {
            ...commonChangeOptions(req.body),
            files: [{ operation: 'delete', path: req.params.filepath, sha: req.body.sha }],
          });
          return ok({ content: null, commit: res.commit, verification: res.verification });
        } catch (err) {
          // Gitea's DeleteFile answers its validation errors (sha mismatch, bad path, existing new branch) with 400.
          if (isApiError(err) && err.status === 422) throw new ApiError(400, err.message, err.details, err.headers);
          throw err;
        }
      },
    },
  ];
}

/** Raw file downloads; media lets `repository.media` taps (Git LFS) answer for small blobs such as pointers. */
function rawFileOperations({ hooks }: GitRouteDeps): ApiOperation[] {
  const mediaFile = async (req: ApiRequest<unknown, RefQuery, FileParams>) => {
    const resolved = repoOf(req);
    const target = await rawTarget(resolved, assertValidTreePath(req.params.filepath), req.query.ref);
    const repository = req.target.repository!;
    return serveRaw(resolved, target, req.headers['if-none-match'], async (path, content) =>
      hooks?.repository.media.promise({ repository, principal: req.principal, path, content, headers: req.headers }),
    );
  };
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/raw/{filepath*}',
      operationId: 'repoGetRawFile',
      tag: 'repository',
      summary: 'Get a file from a repository',
      scopes: ['repository'],
      access: READ_CODE,
      params: FILE_PARAMS,
      query: REF_QUERY,
      responses: { 200: RAW_RESPONSE, 404: 'APIError' },
      handler: rawFile,
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/media/{filepath*}',
      operationId: 'repoGetRawFileOrLFS',
      tag: 'repository',
      summary: "Get a file or it's LFS object from a repository",
      scopes: ['repository'],
      access: READ_CODE,
      params: FILE_PARAMS,
      query: REF_QUERY,
      responses: { 200: RAW_RESPONSE, 404: 'APIError' },
      handler: mediaFile,
    },
  ];
}

/** Language statistics and EditorConfig definitions. */
function repoCodeInfoOperations(): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/languages',
      operationId: 'repoGetLanguages',
      tag: 'repository',
      summary: 'Get languages and number of bytes of code written',
      scopes: ['repository'],
      access: READ_CODE,
      params: OWNER_REPO_PARAMS,
      responses: {
        200: { description: 'LanguageStatistics', schema: { type: 'object', additionalProperties: { type: 'integer', format: 'int64' } } },
        404: 'APIError',
      },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const resolved = repoOf(req);
        const head = await branchCommit(resolved.gitDir, resolved.repo.default_branch);
        return ok(head ? await languageStats(resolved.gitDir, head) : {});
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/editorconfig/{filepath*}',
      operationId: 'repoGetEditorConfig',
      tag: 'repository',
      summary: 'Get the EditorConfig definitions of a file in a repository',
      scopes: ['repository'],
      access: READ_CODE,
      params: FILE_PARAMS,
      query: REF_QUERY,
      responses: {
        200: { description: 'the EditorConfig definitions that apply to the file', schema: { type: 'object', additionalProperties: true } },
        404: 'APIError',
      },
      handler: async (req: ApiRequest<unknown, RefQuery, FileParams>) => {
        const resolved = repoOf(req);
        const path = assertValidTreePath(req.params.filepath);
        const refName = req.query.ref?.trim() || resolved.repo.default_branch;
        const ref = await resolveRef(resolved.gitDir, refName);
        if (!ref) throw ApiError.notFound(req.query.ref ? `no commit found for the ref [ref: ${refName}]` : 'the repository is empty');
        const expr = `${ref.commit}:.editorconfig`;
        const file = (await readBlobs(resolved.gitDir, [expr])).get(expr);
        if (!file) throw ApiError.notFound('the repository has no .editorconfig');
        return ok(definitionJson(propertiesFor(parseEditorConfig(file.toString('utf8')), path)));
      },
    },
  ];
}
