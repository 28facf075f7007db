import {
  ApiError,
  ZERO_ID,
  escapeSegments,
  isApiError,
  nowUnix,
  rowReader,
  toBoolean,
  unixToIso,
  type AttachmentInfo,
  type PluginContext,
  type Principal,
  type RepositoryCounts,
  type RepositoryTarget,
} from '@hearth/plugin-api';

/** A row of the `release` table (Gitea's). */
export interface ReleaseRow {
  id: number;
  repo_id: number;
  publisher_id: number;
  tag_name: string;
  lower_tag_name: string;
  target: string;
  title: string;
  note: string | null;
  is_draft: boolean;
  is_prerelease: boolean;
  created_unix: number;
}

/** What a new release is made of (the API's CreateReleaseOption). */
export interface NewRelease {
  tag_name: string;
  name?: string;
  body?: string;
  draft?: boolean;
  prerelease?: boolean;
}

export const toRelease = rowReader<ReleaseRow>({
  numbers: ['id', 'repo_id', 'publisher_id', 'created_unix'],
  booleans: ['is_draft', 'is_prerelease'],
});

/**
 * Releases of repositories: lookups, Gitea's `Release` JSON, the tag a published release needs,
 * webhooks and removal (with the attachments, which the core stores).
 */
export class ReleaseService {
  constructor(private readonly ctx: PluginContext) {}

  private get db() {
    return this.ctx.db;
  }

  /**
   * Whether the caller sees a repository's draft releases and their attachments: writers of the
   * releases unit (Gitea's CanWrite(unit.TypeReleases)).
   */
  async seesDrafts(repository: RepositoryTarget, principal: Principal | null): Promise<boolean> {
    return ['write', 'admin'].includes(await this.ctx.access.unitLevel(repository, principal, 'releases'));
  }

  /** A release of the repository; drafts only when `drafts` (the caller writes releases). */
  async byId(repository: RepositoryTarget, id: number, drafts: boolean): Promise<ReleaseRow> {
    const row = await this.db('release').where({ repo_id: repository.id, id }).first();
    if (!row || (toBoolean(row.is_draft) && !drafts)) throw ApiError.notFound(`release does not exist [id: ${id}]`);
    return toRelease(row);
  }

  /** The release of a tag: the exact name first, else one that differs in case. */
  async byTag(repository: RepositoryTarget, tag: string): Promise<ReleaseRow | null> {
    const rows = await this.db('release').where({ repo_id: repository.id, lower_tag_name: tag.toLowerCase() });
    const row = rows.find((x: { tag_name: string }) => x.tag_name === tag) ?? rows[0];
    return row ? toRelease(row) : null;
  }

  async toApi(repository: RepositoryTarget, rows: ReleaseRow[], viewer: Principal | null): Promise<Record<string, unknown>[]> {
    const links = this.ctx.repositories.links(repository.owner.name, repository.name);
    const assets = await this.ctx.attachments.listOfReleases(rows.map((x) => x.id));
    const authors = await this.ctx.users.toApiByIds(
      rows.map((x) => x.publisher_id),
      viewer,
    );
    return rows.map((rel) => {
      const archive = `${links.html}/archive/${escapeSegments(rel.tag_name)}`;
      const created = unixToIso(rel.created_unix);
      return {
        id: rel.id,
        tag_name: rel.tag_name,
        target_commitish: rel.target,
        name: rel.title,
        body: rel.note ?? '',
        url: `${links.api}/releases/${rel.id}`,
        html_url: `${links.html}/releases/tag/${escapeSegments(rel.tag_name)}`,
        tarball_url: `${archive}.tar.gz`,
        zipball_url: `${archive}.zip`,
        upload_url: `${links.api}/releases/${rel.id}/assets`,
        draft: rel.is_draft,
        prerelease: rel.is_prerelease,
        created_at: created,
        published_at: created,
        author: authors.get(rel.publisher_id) ?? null,
        assets: assets.filter((a) => a.releaseId === rel.id).map((a) => this.ctx.attachments.toApi(a)),
      };
    });
  }

  async one(repository: RepositoryTarget, row: ReleaseRow, viewer: Principal | null): Promise<Record<string, unknown>> {
    return (await this.toApi(repository, [row], viewer))[0];
  }

  /** Create `refs/tags/<tag>` at `target` unless the tag exists (compare-and-swap against no ref). */
  async ensureTag(repository: RepositoryTarget, tag: string, target: string, principal: Principal): Promise<void> {
    const { git } = this.ctx;
    const ref = `refs/tags/${tag}`;
    if (await git.readRef(repository.gitDir, ref)) return;
    const commit = await git.resolveCommit(repository.gitDir, target, 'target_commitish').catch((err: unknown) => {
      throw isApiError(err) && err.status === 404 ? ApiError.notFound(`target does not exist [target_commitish: ${target}]`) : err;
    });
    if (!(await this.ctx.repositories.updateRef(repository, ref, ZERO_ID, commit, principal.user, 'hearth: tag created for a release'))) {
      if (await git.readRef(repository.gitDir, ref)) return; // created concurrently
      throw ApiError.conflict(`tag conflicts with an existing tag [name: ${tag}]`);
    }
  }

  /** What webhooks carry of a release: nothing for drafts (they stay quiet, as in Gitea). */
  async hookJson(repository: RepositoryTarget, row: ReleaseRow): Promise<Record<string, unknown> | null> {
    return row.is_draft ? null : this.one(repository, row, null);
  }

  /** Webhooks hear of published, updated and deleted releases. */
  async announce(repository: RepositoryTarget, release: Record<string, unknown> | null, action: string, actor: Principal): Promise<void> {
    if (!release) return;
    await this.ctx.emit({
      event: 'release',
      action,
      actor: actor.user,
      ownerId: repository.owner.id,
      repositoryId: repository.id,
      payload: { action, release },
    });
  }

  /** Delete releases with their attachments (the tags stay, as in Gitea). */
  async remove(rows: ReleaseRow[]): Promise<void> {
    const ids = rows.map((x) => x.id);
    const assets = await this.ctx.attachments.listOfReleases(ids);
    await this.db('release').whereIn('id', ids).delete();
    await this.ctx.attachments.remove(assets);
  }

  /** An attachment of a release the caller may see. */
  async asset(repository: RepositoryTarget, releaseId: number, attachmentId: number, principal: Principal | null): Promise<AttachmentInfo> {
    await this.byId(repository, releaseId, await this.seesDrafts(repository, principal));
    const row = await this.ctx.attachments.getOfRelease(releaseId, attachmentId);
    if (!row) throw ApiError.notFound(`attachment does not exist [id: ${attachmentId}]`);
    return row;
  }

  /** Who downloads a release's attachment (after the core checked read access to the releases unit): drafts for writers only. */
  async downloadable(attachment: AttachmentInfo, repository: RepositoryTarget, principal: Principal | null): Promise<boolean> {
    const release = await this.db('release').where({ id: attachment.releaseId, repo_id: attachment.repositoryId }).first('is_draft');
    if (!release) return false;
    return !toBoolean(release.is_draft) || this.seesDrafts(repository, principal);
  }

  /**
   * `release_counter` of the repository JSON: published releases (drafts are not counted), as
   * Gitea 1.20 counts them (GetReleaseCountByRepoID without drafts and tags), for a page of repositories.
   */
  async counts(repositoryIds: readonly number[]): Promise<Map<number, RepositoryCounts>> {
    const out = new Map<number, RepositoryCounts>(repositoryIds.map((id) => [id, { release_counter: 0 }]));
    const rows = await this.db('release')
      .whereIn('repo_id', [...repositoryIds])
      .where('is_draft', false)
      .groupBy('repo_id')
      .select('repo_id')
      .count({ n: '*' });
    for (const row of rows as Array<{ repo_id: unknown; n: unknown }>) {
      const counts = out.get(Number(row.repo_id));
      if (counts) counts.release_counter = Number(row.n);
    }
    return out;
  }

  /** A release's row as it is inserted. */
  static newRow(repositoryId: number, publisherId: number, body: NewRelease, target: string) {
    return {
      repo_id: repositoryId,
      publisher_id: publisherId,
      tag_name: body.tag_name,
      lower_tag_name: body.tag_name.toLowerCase(),
      target,
      title: body.name ?? '',
      note: body.body ?? '',
      is_draft: body.draft ?? false,
      is_prerelease: body.prerelease ?? false,
      created_unix: nowUnix(),
    };
  }
}
