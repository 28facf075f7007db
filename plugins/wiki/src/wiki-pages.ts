import { ApiError, type GitPerson, type PluginContext, type Principal, type RepositoryTarget } from '@hearth/plugin-api';
import { FOOTER, SIDEBAR, fileOf, subUrlOf, titlesFromParam } from './wiki-names';
import { wikiDirOf, type WikiCommitInfo, type WikiStore } from './wiki-store';

/** The wiki as the API shows it: Gitea's WikiPage and WikiPageMetaData JSON, authors, webhooks. */
export class WikiPages {
  constructor(
    private readonly ctx: PluginContext,
    readonly store: WikiStore,
  ) {}

  /** The branch a new wiki starts on (read per use). */
  defaultBranch(): string {
    return this.ctx.forge.raw.repository.DEFAULT_BRANCH;
  }

  /** The acting user as git author: full name (else login), and the no-reply address when they keep their email private. */
  authorOf(principal: Principal): Promise<GitPerson> {
    return this.ctx.git.identityOf(principal.user);
  }

  commitJson(c: WikiCommitInfo | undefined) {
    return c ? { sha: c.sha, author: c.author, commiter: c.committer, committer: c.committer, message: c.message } : null;
  }

  metaData(repository: RepositoryTarget, title: string, last: WikiCommitInfo | undefined) {
    const subUrl = subUrlOf(title);
    const htmlBase = `${this.ctx.forge.appUrl}${repository.owner.name}/${repository.name}/wiki/`;
    return { title, html_url: htmlBase + subUrl, sub_url: subUrl, last_commit: this.commitJson(last) };
  }

  /**
   * The page a `{pageName}` names (its web path, else its title as written, see titlesFromParam) at
   * the wiki's current commit; 404 when none exists.
   */
  async locate(repository: RepositoryTarget, pageName: string): Promise<{ title: string; file: string }> {
    const titles = titlesFromParam(pageName);
    const wikiDir = wikiDirOf(repository.gitDir);
    const found = await this.store.findPage(wikiDir, await this.store.requireCommit(wikiDir), titles);
    if (!found) throw ApiError.notFound(`wiki page does not exist [title: ${titles[0]}]`);
    return found;
  }

  /** Gitea's WikiPage of the page `title` (in `file`, by default its own) at the wiki's current commit; 404 when it does not exist. */
  async page(repository: RepositoryTarget, title: string, file = fileOf(title)) {
    const { store } = this;
    const wikiDir = wikiDirOf(repository.gitDir);
    const commit = await store.requireCommit(wikiDir);
    const [entry, sidebar, footer] = await store.pageBlobs(wikiDir, commit, [file, fileOf(SIDEBAR), fileOf(FOOTER)]);
    if (!entry) throw ApiError.notFound(`wiki page does not exist [title: ${title}]`);
    const history = await store.fileHistory(wikiDir, commit, file, 0, 1);
    const infos = await store.commitInfos(wikiDir, history.shas);
    const base64 = async (e: typeof sidebar) => (e ? (await store.blobContent(wikiDir, e.sha)).toString('base64') : '');
    return {
      ...this.metaData(repository, title, infos.get(history.shas[0])),
      content_base64: await base64(entry),
      commit_count: history.count,
      sidebar: await base64(sidebar),
      footer: await base64(footer),
    };
  }

  /** Webhooks hear of wiki changes (Gitea's WikiPayload: the page name and the commit message). */
  announce(repository: RepositoryTarget, action: string, page: string, comment: string, actor: Principal): Promise<void> {
    return this.ctx.emit({
      event: 'wiki',
      action,
      actor: actor.user,
      ownerId: repository.owner.id,
      repositoryId: repository.id,
      payload: { action, page, comment },
    });
  }
}
