import { h, type VNode } from 'preact';

export interface ConsentInput {
  appName: string;
  /** The application's owner, so that the user knows who asks. */
  ownerName: string;
  userName: string;
  redirectUri: string;
  csrfToken: string;
  /** What the grant lets the application do, one line each. */
  abilities: string[];
  /** The authorization request's parameters, carried by the form to the grant. */
  fields: Record<string, string>;
}

/** The consent page: who asks, what for, where the answer goes; grant or deny (one CSRF-protected form). */
export function consentPage(input: ConsentInput): VNode<any> {
  const hidden = Object.entries(input.fields).map(([name, value]) => h('input', { type: 'hidden', name, value }));
  return h(
    'section',
    { class: 'narrow' },
    h('h1', null, `Authorize ${input.appName}`),
    h(
      'p',
      null,
      h('strong', null, input.appName),
      ` (registered by ${input.ownerName}) wants to access your account `,
      h('strong', null, input.userName),
      '. It will be able to:',
    ),
    h(
      'ul',
      null,
      input.abilities.map((a) => h('li', null, a)),
    ),
    h('p', null, 'If you authorize it, you will be sent to ', h('code', null, input.redirectUri), '.'),
    h(
      'form',
      { method: 'post', action: '/login/oauth/grant' },
      h('input', { type: 'hidden', name: '_csrf', value: input.csrfToken }),
      ...hidden,
      h('button', { type: 'submit', name: 'granted', value: 'true', class: 'primary' }, 'Authorize application'),
      ' ',
      h('button', { type: 'submit', name: 'granted', value: 'false' }, 'Cancel'),
    ),
  );
}
