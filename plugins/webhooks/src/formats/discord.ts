import { summarize } from './summary';

/** Discord's webhook message: one embed with the title, link and details. */
export function discordPayload(eventType: string, body: Record<string, unknown>, meta: Record<string, string>): Record<string, unknown> {
  const s = summarize(eventType, body);
  const sender = (body.sender ?? {}) as Record<string, unknown>;
  return {
    username: meta.username ?? '',
    avatar_url: meta.icon_url ?? '',
    embeds: [
      {
        title: s.title.slice(0, 256),
        description: s.lines.join('\n').slice(0, 4096),
        url: s.url,
        color: s.color,
        author: { name: String(sender.login ?? ''), icon_url: String(sender.avatar_url ?? '') },
      },
    ],
  };
}
