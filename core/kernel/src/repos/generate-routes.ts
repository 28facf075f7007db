import { ApiError, created, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { nowUnix } from '../users/models';
import { gitText, runGit, ZERO_ID } from './git';
import { repoOf } from '../access/operation-access';
import { mayCreateRepoFor, type RepoRouteDeps } from './repo-routes';

interface GenerateBody {
  owner: string;
  name: string;
  description?: string;
  private?: boolean;
  default_branch?: string;
  git_content?: boolean;
  topics?: boolean;
  git_hooks?: boolean;
  webhooks?: boolean;
  avatar?: boolean;
  labels?: boolean;
}

const ITEMS = ['git_content', 'topics', 'git_hooks', 'webhooks', 'avatar', 'labels'] as const;

/**
 * `POST /repos/{template_owner}/{template_repo}/generate`: a new repository from a template. Its
 * git content is the template's default-branch tree as one fresh commit (no shared history), as in
 * Gitea. Labels and webhooks arrive with their features; git hooks are not copied (every
 * repository runs Hearth's own).
 */
export function generateOperations({ repos, users }: Pick<RepoRouteDeps, 'repos' | 'users'>): ApiOperation[] {
  return [
    {
      method: 'post',
      path: '/repos/{template_owner}/{template_repo}/generate',
      operationId: 'generateRepo',
      tag: 'repository',
      summary: 'Create a repository using a template',
      scopes: ['repository'],
      auth: 'required',
      // The new repository copies the template's code: reading it through another unit is not enough.
      access: { repo: { need: 'read', unit: 'code' }, params: { owner: 'template_owner', repo: 'template_repo' } },
      params: {
        type: 'object',
        properties: { template_owner: { type: 'string', maxLength: 255 }, template_repo: { type: 'string', maxLength: 255 } },
        required: ['template_owner', 'template_repo'],
      },
      body: 'GenerateRepoOption',
      bodyRequired: true,
      responses: { 201: 'Repository', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<GenerateBody, unknown, { template_owner: string; template_repo: string }>) => {
        const template = repoOf(req);
        if (!template.repo.is_template)
          throw ApiError.notFound(`${template.owner.name}/${template.repo.name} is not a template repository`);
        const body = req.body;
        if (!ITEMS.some((item) => body[item])) throw ApiError.unprocessable(`choose at least one template item: ${ITEMS.join(', ')}`);
        const actor = req.principal!.user;
        const owner = await users.byName(body.owner);
        if (!owner || !(await repos.access.profileVisible(owner, req.principal)))
          throw ApiError.notFound(`owner does not exist [name: ${body.owner}]`);
        if (!(await mayCreateRepoFor(repos, owner, req.principal!)))
          throw ApiError.forbidden(`you may not create repositories for ${owner.name}`);

        const useContent = body.git_content && !template.repo.is_empty;
        const defaultBranch = body.default_branch || (useContent ? template.repo.default_branch : undefined);
        let row = await repos.create(
          owner,
          { name: body.name, description: body.description, private: body.private, defaultBranch },
          actor,
        );
        const targetDir = repos.gitDir(owner.name, row.name);
        if (useContent) {
          // Bring the template's branch in under a scratch ref, commit its tree afresh, drop the scratch ref.
          const scratch = `refs/hearth/template-${nowUnix()}`;
          await runGit(
            ['fetch', '--quiet', '--no-tags', '--end-of-options', template.gitDir, `refs/heads/${template.repo.default_branch}:${scratch}`],
            { gitDir: targetDir },
          );
          const tree = await gitText(['rev-parse', '--verify', `${scratch}^{tree}`], { gitDir: targetDir });
          const who = {
            GIT_AUTHOR_NAME: actor.fullName || actor.name,
            GIT_AUTHOR_EMAIL: actor.email,
            GIT_COMMITTER_NAME: actor.fullName || actor.name,
            GIT_COMMITTER_EMAIL: actor.email,
          };
          const commit = await gitText(['commit-tree', tree, '-m', 'Initial commit'], { gitDir: targetDir, env: who });
          const branch = row.default_branch;
          await runGit(['update-ref', `refs/heads/${branch}`, commit, ZERO_ID], { gitDir: targetDir });
          await runGit(['update-ref', '-d', scratch], { gitDir: targetDir });
          await repos.recordPush(row, [{ ref: `refs/heads/${branch}`, oldId: ZERO_ID, newId: commit }], actor, false);
        }
        if (body.topics) {
          const db = repos.query().knex();
          const topics = await db('repo_topics').where('repo_id', template.repo.id).select('name');
          if (topics.length) await db('repo_topics').insert(topics.map((t: { name: string }) => ({ repo_id: row.id, name: t.name })));
        }
        await repos.query().where('id', row.id).patch({ template_id: template.repo.id });
        row = (await repos.byId(row.id))!;
        return created(await repos.toApi(row, owner, req.principal));
      },
    },
  ];
}
