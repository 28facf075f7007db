import { Router } from 'express';
import { ApiError, type UserInfo } from '@hearth/plugin-api';
import { ACTIVITY_JSON, personIri, profileUrl, type Persons } from './persons';

/**
 * WebFinger (RFC 7033) for persons, as Gitea serves it at `/.well-known/webfinger`: the resource is
 * `acct:{name}@{host}`, the profile page URL or the Person IRI. It answers as to an anonymous
 * caller (remote servers are), so only public users are found.
 */
export function webfingerRouter(rootUrl: () => string, persons: Persons): Router {
  const router = Router();
  router.get('/webfinger', async (req, res) => {
    const appUrl = rootUrl();
    const resource = typeof req.query.resource === 'string' ? req.query.resource.trim() : '';
    if (!resource) throw ApiError.badRequest('the resource parameter is required');
    const user = await lookUp(resource, appUrl, persons);
    const iri = personIri(appUrl, user.id);
    const profile = profileUrl(appUrl, user);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.type('application/jrd+json').send(
      JSON.stringify({
        subject: `acct:${encodeURIComponent(user.name)}@${new URL(appUrl).host}`,
        aliases: [profile, iri],
        links: [
          { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: profile },
          { rel: 'http://webfinger.net/rel/avatar', href: await persons.avatarUrl(user, null) },
          { rel: 'self', type: ACTIVITY_JSON, href: iri },
        ],
      }),
    );
  });
  return router;
}

const notFound = () => ApiError.notFound('no such person here');

async function lookUp(resource: string, appUrl: string, persons: Persons): Promise<UserInfo> {
  const acct = /^acct:(.+)@([^@]+)$/i.exec(resource);
  if (acct) {
    if (acct[2].toLowerCase() !== new URL(appUrl).host.toLowerCase()) throw notFound();
    return persons.visibleByName(decode(acct[1]), null);
  }
  if (!/^https?:\/\//i.test(resource)) throw ApiError.badRequest('the resource must be an acct: URI or an http(s) URL');
  const base = new URL(appUrl);
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw ApiError.badRequest('the resource is not a valid URL');
  }
  if (url.host.toLowerCase() !== base.host.toLowerCase() || !url.pathname.startsWith(base.pathname)) throw notFound();
  const rest = url.pathname.slice(base.pathname.length).replace(/\/+$/, '');
  const byId = /^api\/v1\/activitypub\/user-id\/(\d{1,15})$/.exec(rest);
  if (byId) return persons.visible(Number(byId[1]), null);
  if (/^[^/]+$/.test(rest)) return persons.visibleByName(decode(rest), null);
  throw notFound();
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw notFound();
  }
}
