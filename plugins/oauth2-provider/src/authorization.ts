import crypto from 'node:crypto';
import { ApiError } from '@hearth/plugin-api';
import type { ApplicationStore, OAuth2Application } from './applications';
import { parseScope, type RequestedScope } from './scopes';

/** An authorization request's parameters (query of `/login/oauth/authorize`, fields of the consent form). */
export const REQUEST_FIELDS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'state',
  'scope',
  'nonce',
  'code_challenge',
  'code_challenge_method',
];

export interface AuthorizationRequest {
  app: OAuth2Application;
  redirectUri: string;
  state: string;
  scope: RequestedScope;
  nonce: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  /** The parameters as received, for the consent form. */
  fields: Record<string, string>;
}

/** A refusal sent back to the client at its redirect URI (RFC 6749 §4.1.2.1), with the request's state. */
export class RedirectError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: string,
    readonly description: string,
    readonly state: string,
  ) {
    super(description);
  }

  location(): string {
    return withParams(this.redirectUri, { error: this.error, error_description: this.description, state: this.state });
  }
}

/** `uri` with query parameters added (empty values left out). */
export function withParams(uri: string, params: Record<string, string>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v);
  return url.toString();
}

const PKCE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * Check an authorization request. An unknown client or a redirect URI it did not register is the
 * user's error page (400: never a redirect to an unchecked URI); every other problem goes back to
 * the client at its redirect URI (`RedirectError`).
 */
export async function checkAuthorizationRequest(apps: ApplicationStore, input: Record<string, unknown>): Promise<AuthorizationRequest> {
  const fields: Record<string, string> = {};
  for (const name of REQUEST_FIELDS) {
    const value = input[name];
    if (value !== undefined && typeof value !== 'string') throw ApiError.badRequest(`${name} must be given once, as a string`);
    if (typeof value === 'string' && value.length > 2048) throw ApiError.badRequest(`${name} is too long`);
    fields[name] = value ?? '';
  }
  const app = fields.client_id ? await apps.byClientId(fields.client_id) : null;
  if (!app) throw ApiError.badRequest(`unknown client_id "${fields.client_id}": the application does not exist or was deleted`);
  const redirectUri = fields.redirect_uri || (app.redirectUris.length === 1 ? app.redirectUris[0] : '');
  if (!app.redirectUris.includes(redirectUri)) {
    throw ApiError.badRequest(`redirect_uri "${fields.redirect_uri}" is not one the application "${app.name}" registered`);
  }
  const refuse = (error: string, description: string) => new RedirectError(redirectUri, error, description, fields.state);
  if (fields.response_type !== 'code') throw refuse('unsupported_response_type', 'only response_type=code is supported');
  const scope = parseScope(fields.scope);
  if ('unknown' in scope) throw refuse('invalid_scope', `unknown scope "${scope.unknown}"`);
  const method = fields.code_challenge ? fields.code_challenge_method || 'plain' : '';
  if (fields.code_challenge && method !== 'S256' && method !== 'plain')
    throw refuse('invalid_request', 'code_challenge_method must be S256 or plain');
  if (fields.code_challenge && !PKCE_CHALLENGE.test(fields.code_challenge))
    throw refuse('invalid_request', 'code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]');
  if (!app.confidential && !fields.code_challenge) throw refuse('invalid_request', 'PKCE (code_challenge) is required for public clients');
  fields.redirect_uri = redirectUri;
  return {
    app,
    redirectUri,
    state: fields.state,
    scope,
    nonce: fields.nonce,
    codeChallenge: fields.code_challenge,
    codeChallengeMethod: method,
    fields,
  };
}

/** Whether `verifier` answers the code's PKCE challenge (RFC 7636 §4.6). */
export function verifierMatches(challenge: string, method: string, verifier: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  const computed = method === 'S256' ? crypto.createHash('sha256').update(verifier).digest('base64url') : verifier;
  return computed.length === challenge.length && crypto.timingSafeEqual(Buffer.from(computed), Buffer.from(challenge));
}
