/** A chat-friendly summary of a Gitea payload: a title line, a few text lines and a link. */
export interface Summary {
  title: string;
  lines: string[];
  url: string;
  /** 0xRRGGBB: green for creation, red for deletion, blue otherwise. */
  color: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const obj = (v: unknown): Record<string, any> => (v && typeof v === 'object' ? (v as Record<string, any>) : {});

export function summarize(eventType: string, body: Record<string, unknown>): Summary {
  const repo = obj(body.repository);
  const sender = str(obj(body.sender).login);
  const repoName = str(repo.full_name);
  const action = str(body.action);
  const green = 0x2ecc71;
  const red = 0xe74c3c;
  const blue = 0x3498db;
  switch (eventType) {
    case 'push': {
      const commits = Array.isArray(body.commits) ? (body.commits as Record<string, any>[]) : [];
      const branch = str(body.ref).replace(/^refs\/(heads|tags)\//, '');
      const n = Number(body.total_commits ?? commits.length);
      return {
        title: `[${repoName}:${branch}] ${n} new commit${n === 1 ? '' : 's'} pushed by ${sender}`,
        lines: commits.map((c) => `${str(c.id).slice(0, 7)}: ${str(c.message).split('\n')[0]} - ${str(obj(c.author).name)}`),
        url: str(body.compare_url) || str(repo.html_url),
        color: blue,
      };
    }
    case 'create':
    case 'delete':
      return {
        title: `[${repoName}] ${str(body.ref_type)} ${str(body.ref)} ${eventType === 'create' ? 'created' : 'deleted'} by ${sender}`,
        lines: [],
        url: str(repo.html_url),
        color: eventType === 'create' ? green : red,
      };
    case 'fork':
      return {
        title: `[${str(obj(body.forkee).full_name)}] forked to ${repoName} by ${sender}`,
        lines: [],
        url: str(repo.html_url),
        color: green,
      };
    case 'release': {
      const rel = obj(body.release);
      return {
        title: `[${repoName}] release ${str(rel.tag_name)} ${action} by ${sender}`,
        lines: [str(rel.name)].filter(Boolean),
        url: str(rel.html_url),
        color: action === 'deleted' ? red : green,
      };
    }
    case 'repository':
      return {
        title: `[${repoName}] repository ${action} by ${sender}`,
        lines: [],
        url: str(repo.html_url),
        color: action === 'deleted' ? red : green,
      };
    case 'wiki':
      return {
        title: `[${repoName}] wiki page '${str(body.page)}' ${action} by ${sender}`,
        lines: [str(body.comment)].filter(Boolean),
        url: `${str(repo.html_url)}/wiki`,
        color: blue,
      };
    case 'package': {
      const pkg = obj(body.package);
      return {
        title: `Package ${str(pkg.type)} ${str(pkg.name)} ${str(pkg.version)} ${action} by ${sender}`,
        lines: [],
        url: str(pkg.html_url),
        color: green,
      };
    }
    default: {
      const item = obj(body.pull_request ?? body.issue);
      const comment = obj(body.comment);
      const kind = body.pull_request || body.is_pull ? 'Pull request' : 'Issue';
      const what = eventType.endsWith('_comment') ? `${kind} comment ${action}` : `${kind} ${action.replace(/_/g, ' ')}`;
      return {
        title: `[${repoName}] ${what}: #${str(item.number ?? body.number)} ${str(item.title)} by ${sender}`,
        lines: [str(comment.body || (action === 'opened' ? item.body : ''))].filter(Boolean).map((l) => l.slice(0, 500)),
        url: str(comment.html_url) || str(item.html_url),
        color: action === 'closed' || action === 'deleted' ? red : action === 'opened' ? green : blue,
      };
    }
  }
}
