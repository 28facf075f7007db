/** `/notifications`: the signed-in user's notification threads, by status, with mark read/unread and pin. */
import { Notice, Pager, When, repoHref } from './common';
import { Csrf, Layout, type PageKit } from './layout';

export type NotificationTab = 'unread' | 'read' | 'pinned';
export const NOTIFICATION_TABS: NotificationTab[] = ['unread', 'read', 'pinned'];

export interface ThreadJson {
  id: number;
  unread: boolean;
  pinned: boolean;
  updated_at: string;
  repository: { full_name: string } | null;
  subject: { type: string; title: string; html_url: string; state: string };
}

export interface NotificationsProps {
  kit: PageKit;
  tab: NotificationTab;
  threads: ThreadJson[];
  counts: Record<NotificationTab, number>;
  page: number;
  limit: number;
  /** A thread's subject as a path on this site ('' when the subject has no page). */
  localHref(url: string): string;
}

const TAB_LABELS: Record<NotificationTab, string> = { unread: 'Unread', read: 'Read', pinned: 'Pinned' };
const TYPE_LABELS: Record<string, string> = { Issue: 'Issue', Pull: 'Pull request', Commit: 'Commit', Repository: 'Repository' };

export function NotificationsPage({ kit, tab, threads, counts, page, limit, localHref }: NotificationsProps) {
  const href = (t: NotificationTab, p = 1) => `/notifications?q=${t}${p > 1 ? `&page=${p}` : ''}`;
  return (
    <Layout kit={kit} title="Notifications">
      <section class="notifications">
        <div class="list-head">
          <h1>Notifications</h1>
          {tab === 'unread' && counts.unread > 0 && (
            <form method="post" action="/notifications/purge" class="inline">
              <Csrf kit={kit} />
              <button type="submit">Mark all as read</button>
            </form>
          )}
        </div>
        <nav class="state-tabs" aria-label="Notification status">
          {NOTIFICATION_TABS.map((t) => (
            <a href={href(t)} aria-current={t === tab ? 'page' : undefined}>
              {counts[t]} {TAB_LABELS[t]}
            </a>
          ))}
        </nav>
        {threads.length === 0 ? (
          <ul class="rows">
            <li class="empty">No {TAB_LABELS[tab].toLowerCase()} notifications.</li>
          </ul>
        ) : (
          <ul class="rows">
            {threads.map((t) => (
              <ThreadRow kit={kit} thread={t} tab={tab} page={page} localHref={localHref} />
            ))}
          </ul>
        )}
        <Pager page={page} limit={limit} total={counts[tab]} href={(p) => href(tab, p)} />
        {tab === 'unread' && counts.pinned > 0 && <Notice>Pinned notifications are under “Pinned”.</Notice>}
      </section>
    </Layout>
  );
}

function ThreadRow({
  kit,
  thread,
  tab,
  page,
  localHref,
}: {
  kit: PageKit;
  thread: ThreadJson;
  tab: NotificationTab;
  page: number;
  localHref(url: string): string;
}) {
  const { subject, repository } = thread;
  const link = localHref(subject.html_url);
  const title = subject.title || TYPE_LABELS[subject.type] || subject.type;
  const action = (status: 'read' | 'unread' | 'pinned', label: string) => (
    <form method="post" action="/notifications/status" class="inline">
      <Csrf kit={kit} />
      <input type="hidden" name="notification_id" value={String(thread.id)} />
      <input type="hidden" name="status" value={status} />
      <input type="hidden" name="q" value={tab} />
      <input type="hidden" name="page" value={String(page)} />
      <button type="submit" aria-label={`${label}: ${title}`}>
        {label}
      </button>
    </form>
  );
  return (
    <li class="notification">
      <div class="notification-main">
        <span class="badge">{TYPE_LABELS[subject.type] ?? subject.type}</span>
        {subject.state && <span class={`badge notification-state ${subject.state}`}>{subject.state}</span>}{' '}
        {link ? (
          <a class="title" href={link}>
            {title}
          </a>
        ) : (
          <span class="title">{title}</span>
        )}
        <p class="meta">
          {repository && <a href={repoHref(repository.full_name)}>{repository.full_name}</a>} · updated <When at={thread.updated_at} />
        </p>
      </div>
      <div class="notification-actions">
        {thread.unread ? action('read', 'Mark as read') : !thread.pinned && action('unread', 'Mark as unread')}
        {thread.pinned ? action('read', 'Unpin') : action('pinned', 'Pin')}
      </div>
    </li>
  );
}
