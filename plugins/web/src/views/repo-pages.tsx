/** Repository code pages: home, directory and file views, blame, and the empty repository's first steps. */
import type { BlameGroup, CodeRef, CommitSummary, RefList, TreeItem } from '../routes/repo-git';
import { Notice, Rendered } from './common';
import type { RepoJson } from './home-pages';
import { Layout, type PageKit } from './layout';
import { CodeTable, highlightLines, LineCells } from './repo-code';
import { RepoHeader } from './repo-header';
import { Breadcrumb, CloneBox, CodeBar, CommitLine, WhenUnix, commitUrl, formatSize, refUrl } from './repo-parts';

export interface DirEntry extends TreeItem {
  last?: CommitSummary;
}

export interface ReadmeView {
  name: string;
  /** Rendered markdown (the forge's renderer), or plain text. */
  html?: string;
  text?: string;
  truncated?: boolean;
}

/** What a file view shows, decided from its size and content. */
export type FileContent =
  | { kind: 'text'; text: string }
  | { kind: 'markdown'; html: string; text: string; source: boolean }
  | { kind: 'image' }
  | { kind: 'binary' }
  | { kind: 'too-large' }
  | { kind: 'symlink'; target: string };

export type CodeView =
  | { kind: 'dir'; entries: DirEntry[]; latest: CommitSummary | null; readme: ReadmeView | null }
  | { kind: 'file'; name: string; size: number; content: FileContent; latest: CommitSummary | null };

export interface CodeProps {
  kit: PageKit;
  repo: RepoJson;
  refs: RefList;
  current: CodeRef;
  /** '' for the root. */
  path: string;
  view: CodeView;
}

/** A small drawn icon per entry kind (no icon font or emoji: every system shows it the same). */
function EntryIcon({ kind }: { kind: TreeItem['kind'] }) {
  const folder = kind === 'dir' || kind === 'submodule';
  return (
    <svg class={`icon ${kind}`} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      {folder ? <path d="M1 3.5h5l1.5 1.5H15v8.5H1z" /> : <path d="M3 1h6.5L13 4.5V15H3z M9.5 1v3.5H13" />}
    </svg>
  );
}

const KIND_LABEL: Record<TreeItem['kind'], string> = { dir: 'Directory', file: 'File', symlink: 'Symbolic link', submodule: 'Submodule' };

function DirTable({ repo, current, path, entries }: { repo: RepoJson; current: CodeRef; path: string; entries: DirEntry[] }) {
  const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  return (
    <table class="files">
      <caption class="visually-hidden">Files in {path || repo.name}</caption>
      <thead class="visually-hidden">
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Last commit</th>
          <th scope="col">Date</th>
        </tr>
      </thead>
      <tbody>
        {path && (
          <tr>
            <td colSpan={3}>
              <a href={refUrl(repo, 'src', current, parent)}>..</a>
            </td>
          </tr>
        )}
        {entries.map((entry) => (
          <tr>
            <td class="name">
              <EntryIcon kind={entry.kind} /> <span class="visually-hidden">{KIND_LABEL[entry.kind]}</span>
              {entry.kind === 'submodule' ? (
                <span>
                  {entry.name} @ <code>{entry.sha.slice(0, 10)}</code>
                </span>
              ) : (
                <a href={refUrl(repo, 'src', current, path ? `${path}/${entry.name}` : entry.name)}>{entry.name}</a>
              )}
            </td>
            <td class="message">{entry.last && <a href={commitUrl(repo, entry.last.sha)}>{entry.last.subject || '(no message)'}</a>}</td>
            <td class="when">{entry.last && <WhenUnix at={entry.last.when} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Readme({ readme }: { readme: ReadmeView }) {
  return (
    <section class="box readme" aria-labelledby="readme-title">
      <header>
        <h2 id="readme-title">{readme.name}</h2>
      </header>
      <div class="body">
        {readme.html !== undefined ? <Rendered html={readme.html} /> : <pre class="plain">{readme.text}</pre>}
        {readme.truncated && <Notice>Only the beginning of this file is shown.</Notice>}
      </div>
    </section>
  );
}

function FileBody({
  repo,
  current,
  path,
  name,
  content,
}: {
  repo: RepoJson;
  current: CodeRef;
  path: string;
  name: string;
  content: FileContent;
}) {
  const raw = refUrl(repo, 'raw', current, path);
  switch (content.kind) {
    case 'text':
      return <CodeTable text={content.text} fileName={name} />;
    case 'markdown':
      return content.source ? <CodeTable text={content.text} fileName={name} /> : <Rendered html={content.html} class="markdown body" />;
    case 'image':
      return (
        <p class="body image">
          <img src={raw} alt={name} />
        </p>
      );
    case 'symlink':
      return (
        <p class="body">
          Symbolic link to <code>{content.target}</code>
        </p>
      );
    default:
      return (
        <div class="body">
          <Notice>
            {content.kind === 'binary'
              ? 'This file is binary and is not shown here.'
              : 'This file is larger than 1 MiB and is not shown here.'}{' '}
            <a href={raw}>View the raw file</a>.
          </Notice>
        </div>
      );
  }
}

function FileView({
  repo,
  current,
  path,
  view,
}: {
  repo: RepoJson;
  current: CodeRef;
  path: string;
  view: Extract<CodeView, { kind: 'file' }>;
}) {
  const { content } = view;
  const here = refUrl(repo, 'src', current, path);
  const textual = content.kind === 'text' || content.kind === 'markdown';
  return (
    <section class="box file" aria-labelledby="file-title">
      <header class="file-head">
        <h2 id="file-title">{view.name}</h2>
        <span class="meta">{formatSize(view.size)}</span>
        <nav class="file-links" aria-label="File">
          {content.kind === 'markdown' && (content.source ? <a href={here}>Preview</a> : <a href={`${here}?display=source`}>Source</a>)}
          <a href={refUrl(repo, 'raw', current, path)}>Raw</a>
          {textual && <a href={refUrl(repo, 'blame', current, path)}>Blame</a>}
          <a href={refUrl(repo, 'commits', current, path)}>History</a>
        </nav>
      </header>
      <FileBody repo={repo} current={current} path={path} name={view.name} content={content} />
    </section>
  );
}

/** The code of a ref: the home page's root listing or any directory or file under `src/`. */
function Code({ repo, refs, current, path, view, home }: Omit<CodeProps, 'kit'> & { home?: boolean }) {
  return (
    <>
      <CodeBar repo={repo} refs={refs} current={current} path={view.kind === 'file' ? path : ''} />
      {!home && <Breadcrumb repo={repo} current={current} path={path} />}
      <div class="box latest">
        <CommitLine repo={repo} commit={view.latest} history={refUrl(repo, 'commits', current, path)} />
      </div>
      {view.kind === 'dir' ? (
        <>
          <DirTable repo={repo} current={current} path={path} entries={view.entries} />
          {view.readme && <Readme readme={view.readme} />}
        </>
      ) : (
        <FileView repo={repo} current={current} path={path} view={view} />
      )}
    </>
  );
}

export function RepoHomePage(props: CodeProps) {
  const { kit, repo } = props;
  return (
    <Layout kit={kit} title={repo.full_name}>
      <RepoHeader repo={repo} tab="code" />
      <CloneBox repo={repo} />
      <Code {...props} home />
    </Layout>
  );
}

export function SourcePage(props: CodeProps) {
  const { kit, repo, path, current } = props;
  return (
    <Layout
      kit={kit}
      title={`${path || repo.name} at ${current.kind === 'commit' ? current.name.slice(0, 10) : current.name} · ${repo.full_name}`}
      styles={['highlight.css']}
    >
      <RepoHeader repo={repo} tab="code" />
      <Code {...props} />
    </Layout>
  );
}

/** A repository without commits: how to push the first one. */
export function EmptyRepoPage({ kit, repo, missingBranch }: { kit: PageKit; repo: RepoJson; missingBranch?: RefList }) {
  const branch = repo.default_branch || 'main';
  const url = repo.clone_url;
  return (
    <Layout kit={kit} title={repo.full_name}>
      <RepoHeader repo={repo} tab="code" />
      {missingBranch ? (
        <Notice>
          The default branch <code>{branch}</code> does not exist. Pick a branch:{' '}
          {missingBranch.branches.slice(0, 20).map((b) => (
            <>
              <a href={refUrl(repo, 'src', { kind: 'branch', name: b.name })}>{b.name}</a>{' '}
            </>
          ))}
        </Notice>
      ) : (
        <section class="empty-repo">
          <h2>This repository is empty</h2>
          <CloneBox repo={repo} />
          <h3>Create a new repository on the command line</h3>
          <pre>
            <code>
              {[
                'touch README.md',
                'git init',
                `git checkout -b ${branch}`,
                'git add README.md',
                'git commit -m "first commit"',
                `git remote add origin ${url}`,
                `git push -u origin ${branch}`,
              ].join('\n')}
            </code>
          </pre>
          <h3>Push an existing repository from the command line</h3>
          <pre>
            <code>{[`git remote add origin ${url}`, `git push -u origin ${branch}`].join('\n')}</code>
          </pre>
        </section>
      )}
    </Layout>
  );
}

export interface BlameProps {
  kit: PageKit;
  repo: RepoJson;
  refs: RefList;
  current: CodeRef;
  path: string;
  groups: BlameGroup[];
  /** Not blamed: binary or over 1 MiB. */
  notice?: string;
}

/** Who last changed each line: runs of lines grouped by commit. */
export function BlamePage({ kit, repo, refs, current, path, groups, notice }: BlameProps) {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const all = groups.flatMap((g) => g.lines);
  const html = highlightLines(all.join('\n'), name);
  let n = 0;
  return (
    <Layout kit={kit} title={`Blame ${path} · ${repo.full_name}`} styles={['highlight.css']}>
      <RepoHeader repo={repo} tab="code" />
      <CodeBar repo={repo} refs={refs} current={current} path={path} what="blame" />
      <Breadcrumb repo={repo} current={current} path={path} />
      <section class="box file" aria-labelledby="file-title">
        <header class="file-head">
          <h2 id="file-title">Blame: {name}</h2>
          <nav class="file-links" aria-label="File">
            <a href={refUrl(repo, 'src', current, path)}>Normal view</a>
            <a href={refUrl(repo, 'raw', current, path)}>Raw</a>
            <a href={refUrl(repo, 'commits', current, path)}>History</a>
          </nav>
        </header>
        {notice ? (
          <div class="body">
            <Notice>
              {notice} <a href={refUrl(repo, 'raw', current, path)}>View the raw file</a>.
            </Notice>
          </div>
        ) : (
          <div class="blob blame">
            <table>
              <tbody>
                {groups.flatMap((group) =>
                  group.lines.map((line, i) => {
                    const number = group.start + i;
                    const index = n++;
                    return (
                      <tr class={i === 0 ? 'blame-start' : undefined}>
                        {i === 0 && (
                          <td class="blame-commit" rowSpan={group.lines.length}>
                            <a href={commitUrl(repo, group.commit.sha)}>
                              <code>{group.commit.sha.slice(0, 8)}</code>
                            </a>{' '}
                            <span class="summary">{group.commit.subject}</span>
                            <br />
                            <span class="meta">
                              {group.commit.author} · <WhenUnix at={group.commit.when} />
                            </span>
                          </td>
                        )}
                        <LineCells number={number} html={html?.[index]} text={line} />
                      </tr>
                    );
                  }),
                )}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}
