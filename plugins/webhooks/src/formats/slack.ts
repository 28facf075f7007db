import { summarize } from './summary';

/** Slack's incoming-webhook message: `text` with `<url|title>` links and one attachment for the details. */
export function slackPayload(eventType: string, body: Record<string, unknown>, meta: Record<string, string>): Record<string, unknown> {
  const s = summarize(eventType, body);
  const hex = (color: number) => color.toString(16).padStart(6, '0');
  const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    channel: meta.channel ?? '',
    username: meta.username ?? '',
    icon_url: meta.icon_url ?? '',
    text: s.url ? `<${s.url}|${escape(s.title)}>` : escape(s.title),
    attachments: s.lines.length ? [{ color: meta.color || `#${hex(s.color)}`, text: escape(s.lines.join('\n')) }] : [],
  };
}
