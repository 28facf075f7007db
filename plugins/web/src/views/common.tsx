import type { ComponentChildren } from 'preact';

/** A date as people read it, with the exact time for machines and on hover. */
export function When({ at }: { at: string | undefined }) {
  if (!at) return null;
  const date = new Date(at);
  return (
    <time datetime={date.toISOString()} title={date.toUTCString()}>
      {date.toISOString().slice(0, 10)}
    </time>
  );
}

/** HTML produced by the forge's markdown renderer, which escapes raw HTML and refuses script URLs. */
export function Rendered({ html, class: className = 'markdown' }: { html: string; class?: string }) {
  return <div class={className} dangerouslySetInnerHTML={{ __html: html }} />;
}

export function Notice({ kind = 'info', children }: { kind?: 'info' | 'error' | 'success'; children: ComponentChildren }) {
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** Previous/next links for a paged list; `href(page)` builds each page's URL. */
export function Pager({ page, limit, total, href }: { page: number; limit: number; total: number; href(page: number): string }) {
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? (
        <a href={href(page - 1)} rel="prev">
          Previous
        </a>
      ) : (
        <span aria-disabled="true">Previous</span>
      )}
      <span>
        Page {page} of {pages}
      </span>
      {page < pages ? (
        <a href={href(page + 1)} rel="next">
          Next
        </a>
      ) : (
        <span aria-disabled="true">Next</span>
      )}
    </nav>
  );
}

export function Avatar({ url, name, size = 24 }: { url?: string; name: string; size?: number }) {
  return url ? <img class="avatar" src={url} alt="" width={size} height={size} loading="lazy" title={name} /> : null;
}

/** `1 commit`, `2 commits`: a count and its noun. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

// --- site URLs and the small pieces every area links with ------------------------------------------

/** `/{login}`: a user's or an organization's page. */
export function userHref(login: string): string {
  return `/${encodeURIComponent(login)}`;
}

/** `/{owner}/{repo}` from a repository's `full_name` (`owner/repo`), each part percent-encoded. */
export function repoHref(fullName: string): string {
  return `/${fullName.split('/').map(encodeURIComponent).join('/')}`;
}

/** A ref or path in a URL: each `/`-separated segment percent-encoded, the slashes kept. */
export function encodeSegments(value: string): string {
  return value.split('/').map(encodeURIComponent).join('/');
}

/** A person's name linked to their page; "Ghost" for a deleted account. */
export function UserLink({ user }: { user: { login: string } | null | undefined }) {
  if (!user) return <span>Ghost</span>;
  return (
    <a class="author" href={userHref(user.login)}>
      {user.login}
    </a>
  );
}

/** A label as a chip: a colour swatch (SVG fill, since the pages' CSP forbids style attributes) and its name. */
export function LabelChip({ label, href }: { label: { name: string; color: string; description?: string }; href?: string }) {
  const color = /^#?[0-9a-fA-F]{6}$/.test(label.color) ? `#${label.color.replace(/^#/, '')}` : '#cccccc';
  const inner = (
    <>
      <svg class="swatch" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" focusable="false">
        <circle cx="5" cy="5" r="5" fill={color} />
      </svg>
      {label.name}
    </>
  );
  return href ? (
    <a class="label" href={href} title={label.description || undefined}>
      {inner}
    </a>
  ) : (
    <span class="label" title={label.description || undefined}>
      {inner}
    </span>
  );
}
