import type { Response } from 'express';

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface LinkPageInput {
  appName: string;
  sourceName: string;
  /** The existing account the provider's email belongs to. */
  accountName: string;
  email: string;
  token: string;
  /** Where the form posts (`/user/oauth2/{source}/link`). */
  action: string;
  error?: string;
}

/**
 * The page of a first sign-in whose email is an existing account's: the provider's sign-in is not
 * attached to it silently. The account's owner confirms with its password (which links the two:
 * from then on the provider signs them in), or goes back to the ordinary sign-in form. A plain
 * page of its own, without scripts; the form's token ties it to this browser and this offer.
 */
export function sendLinkPage(res: Response, status: number, page: LinkPageInput): void {
  const error = page.error ? `<p class="error" role="alert">${escape(page.error)}</p>` : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Link your account - ${escape(page.appName)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
.error{color:#b00020}label,input,button{display:block;margin:.4rem 0}input{padding:.4rem;width:100%;box-sizing:border-box}</style></head>
<body><main>
<h1>An account with this email address already exists</h1>
<p>${escape(page.sourceName)} says you are <strong>${escape(page.email)}</strong>, which is the email address of the account
<strong>${escape(page.accountName)}</strong>. It is not linked to ${escape(page.sourceName)} automatically.</p>
<p>If that account is yours, confirm with its password to link it: from then on signing in with ${escape(page.sourceName)}
signs you in as ${escape(page.accountName)}. Otherwise <a href="/user/login">sign in with the account's password</a> as usual.</p>
${error}
<form method="post" action="${escape(page.action)}">
<input type="hidden" name="token" value="${escape(page.token)}">
<label for="password">Password of ${escape(page.accountName)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Link and sign in</button>
</form>
</main></body></html>`;
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
    })
    .send(html);
}
