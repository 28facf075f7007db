import { summarize } from './summary';

/** A Microsoft Teams connector MessageCard. */
export function msteamsPayload(eventType: string, body: Record<string, unknown>): Record<string, unknown> {
  const s = summarize(eventType, body);
  return {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    themeColor: s.color.toString(16).padStart(6, '0'),
    title: s.title,
    summary: s.title,
    sections: [{ text: s.lines.join('\n\n') }],
    potentialAction: s.url ? [{ '@type': 'OpenUri', name: 'View in browser', targets: [{ os: 'default', uri: s.url }] }] : [],
  };
}
