import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from '@hearth/testing';

/**
 * A remote ActivityPub server on loopback: it serves its actor (with the public key) and signs
 * deliveries the way Mastodon does, with Node's crypto (not the library the server verifies with).
 */
class RemoteActor {
  readonly keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  /** Fetches of the actor document, to tell that a refused host was never contacted. */
  fetches = 0;
  private server!: http.Server;
  base = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      this.fetches++;
      if (req.url !== '/actor') return void res.writeHead(404).end();
      const id = `${this.base}/actor`;
      const publicKeyPem = this.keys.publicKey.export({ type: 'spki', format: 'pem' });
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      res.end(JSON.stringify({ id, type: 'Person', inbox: `${id}/inbox`, publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem } }));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Headers of a signed POST of `body` to `url`; `tamper` makes one part wrong. */
  signedHeaders(
    url: string,
    body: string,
    tamper: { key?: KeyObject; keyId?: string; date?: Date; digestOf?: string; digest?: string; algorithm?: string } = {},
  ) {
    const target = new URL(url);
    const date = (tamper.date ?? new Date()).toUTCString();
    const digest =
      tamper.digest ??
      `SHA-256=${createHash('sha256')
        .update(tamper.digestOf ?? body)
        .digest('base64')}`;
    const signingString = [`(request-target): post ${target.pathname}`, `host: ${target.host}`, `date: ${date}`, `digest: ${digest}`].join(
      '\n',
    );
    const signature = sign('sha256', Buffer.from(signingString), tamper.key ?? this.keys.privateKey).toString('base64');
    const keyId = tamper.keyId ?? `${this.base}/actor#main-key`;
    return {
      'Content-Type': 'application/activity+json',
      Date: date,
      Digest: digest,
      Signature: [
        `keyId="${keyId}"`,
        `algorithm="${tamper.algorithm ?? 'rsa-sha256'}"`,
        'headers="(request-target) host date digest"',
        `signature="${signature}"`,
      ].join(','),
    };
  }
}

const PLUGIN = { activitypub: { enabled: true, package: path.join(__dirname, '..') } };
const admin: [string, string] = [ADMIN.name, ADMIN.password];
let server: TestServer;
let remote: RemoteActor;
let alice: { name: string; password: string; id: number };
let hidden: { name: string; password: string; id: number };
let orgId: number;

beforeAll(async () => {
  remote = new RemoteActor();
  await remote.start();
  // Loopback is allowed for the test's remote actor; `localhost` (the same address by name) is blocked.
  server = await startServer({ plugins: PLUGIN, migrations: { ALLOW_LOCALNETWORKS: true, BLOCKED_DOMAINS: 'localhost' } });
  alice = await server.user('alice');
  hidden = await server.user('hidden', { visibility: 'private' });
  const org = await server.api('POST', '/orgs', { basic: admin, body: { username: 'acme' } });
  expect(org.status).toBe(201);
  orgId = org.body.id;
});
afterAll(async () => {
  await server?.close();
  await remote?.close();
});

const personPath = (id: number | string) => `/activitypub/user-id/${id}`;
const iriOf = (id: number) => `${server.url}api/v1/activitypub/user-id/${id}`;
const host = () => new URL(server.url).host;
const webfinger = (resource: string) => server.api('GET', `//.well-known/webfinger?resource=${encodeURIComponent(resource)}`);

describe('the Person of a user', () => {
  test('is an ActivityStreams Person whose IRI is built from the user id', async () => {
    const res = await server.api('GET', personPath(alice.id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/activity+json; charset=utf-8');
    const iri = iriOf(alice.id);
    expect(res.body).toMatchObject({
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
      id: iri,
      type: 'Person',
      preferredUsername: 'alice',
      name: 'alice',
      url: `${server.url}alice`,
      icon: { type: 'Image', url: expect.stringMatching(/^http/) },
      inbox: `${iri}/inbox`,
      outbox: `${iri}/outbox`,
      publicKey: { id: `${iri}#main-key`, owner: iri, publicKeyPem: expect.stringContaining('BEGIN PUBLIC KEY') },
    });
    const ld = await server.api('GET', personPath(alice.id), { headers: { Accept: 'application/ld+json' } });
    expect(ld.headers.get('content-type')).toBe('application/ld+json; profile="https://www.w3.org/ns/activitystreams"; charset=utf-8');
  });

  test('keeps its IRI and key across a rename; only preferredUsername follows the name', async () => {
    const before = (await server.api('GET', personPath(alice.id))).body;
    const renamed = await server.api('POST', '/admin/users/alice/rename', { basic: admin, body: { new_username: 'alicia' } });
    expect(renamed.status).toBe(204);
    alice.name = 'alicia';
    const after = (await server.api('GET', personPath(alice.id))).body;
    expect(after.id).toBe(before.id);
    expect(after.publicKey).toEqual(before.publicKey);
    expect(after.preferredUsername).toBe('alicia');
    expect(after.url).toBe(`${server.url}alicia`);
  });

  test('keeps the private key sealed at rest', async () => {
    const row = await server.kernel.db('activitypub_user_keys').where('user_id', alice.id).first();
    expect(row.public_key_pem).toContain('BEGIN PUBLIC KEY');
    expect(row.private_key_sealed).not.toContain('PRIVATE KEY');
  });

  test('is 404 for who may not see the user, an organization, an unknown id; 422 for a non-numeric id', async () => {
    expect((await server.api('GET', personPath(hidden.id))).status).toBe(404);
    const self = await server.api('GET', personPath(hidden.id), { basic: [hidden.name, hidden.password] });
    expect(self.status).toBe(200);
    expect(self.body.preferredUsername).toBe('hidden');
    const limited = await server.user('members-only', { visibility: 'limited' });
    expect((await server.api('GET', personPath(limited.id))).status).toBe(404);
    expect((await server.api('GET', personPath(limited.id), { basic: [alice.name, alice.password] })).status).toBe(200);
    expect((await server.api('GET', personPath(orgId))).status).toBe(404);
    expect((await server.api('GET', personPath(987654))).status).toBe(404);
    const bad = await server.api('GET', personPath('alice'));
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('user-id');
  });

  test('needs read:activitypub of a scoped token', async () => {
    const token = await server.token(alice, ['read:user']);
    const res = await server.api('GET', personPath(alice.id), { token });
    expect(res.status).toBe(403);
    const allowed = await server.token(alice, ['read:activitypub']);
    expect((await server.api('GET', personPath(alice.id), { token: allowed })).status).toBe(200);
  });
});

describe('WebFinger', () => {
  test('finds the Person by acct:, by its IRI and by the profile URL', async () => {
    const res = await webfinger(`acct:${alice.name}@${host()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/jrd+json');
    expect(res.body.subject).toBe(`acct:alicia@${host()}`);
    expect(res.body.links).toEqual(
      expect.arrayContaining([
        { rel: 'self', type: 'application/activity+json', href: iriOf(alice.id) },
        { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: `${server.url}alicia` },
        { rel: 'http://webfinger.net/rel/avatar', href: expect.stringMatching(/^http/) },
      ]),
    );
    expect((await webfinger(iriOf(alice.id))).body.subject).toBe(`acct:alicia@${host()}`);
    expect((await webfinger(`${server.url}alicia`)).body.subject).toBe(`acct:alicia@${host()}`);
  });

  test('is 404 for an old name, another host, a private user; 400 without a usable resource', async () => {
    expect((await webfinger(`acct:alice@${host()}`)).status).toBe(404);
    expect((await webfinger(`acct:alicia@elsewhere.example`)).status).toBe(404);
    expect((await webfinger(`acct:hidden@${host()}`)).status).toBe(404);
    expect((await webfinger(iriOf(hidden.id))).status).toBe(404);
    expect((await webfinger(iriOf(orgId))).status).toBe(404);
    expect((await webfinger('ftp://x')).status).toBe(400);
    const missing = await server.api('GET', '//.well-known/webfinger');
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('resource');
  });
});

describe('the inbox', () => {
  const activity = () => JSON.stringify({ type: 'Follow', actor: `${remote.base}/actor`, object: iriOf(alice.id) });
  const inboxUrl = () => `${iriOf(alice.id)}/inbox`;
  const post = (body: string, headers: Record<string, string>, url = inboxUrl()) =>
    server.api('POST', `//${new URL(url).pathname.slice(1)}`, { rawBody: body, headers });
  const keyRows = async () => Number((await server.kernel.db('activitypub_user_keys').count({ n: '*' }))[0].n);

  test('takes a delivery signed with the remote actor key (204) and stores nothing', async () => {
    const rows = await keyRows();
    const body = activity();
    const res = await post(body, remote.signedHeaders(inboxUrl(), body));
    expect(res.text).toBe('');
    expect(res.status).toBe(204);
    expect(await keyRows()).toBe(rows);
    // hs2019 (the algorithm named by the key, as newer Mastodon sends it) and a SHA-512 digest beside SHA-256.
    const hs2019 = remote.signedHeaders(inboxUrl(), body, { algorithm: 'hs2019' });
    expect((await post(body, hs2019)).status).toBe(204);
    const sha256 = `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
    const sha512 = `SHA-512=${createHash('sha512').update(body).digest('base64')}`;
    expect((await post(body, remote.signedHeaders(inboxUrl(), body, { digest: `${sha256},${sha512}` }))).status).toBe(204);
    // Every digest given must match, and the Digest header is covered by the signature.
    const badSha512 = `SHA-512=${createHash('sha512').update('other').digest('base64')}`;
    expect((await post(body, remote.signedHeaders(inboxUrl(), body, { digest: `${sha256},${badSha512}` }))).status).toBe(400);
    expect((await post(body, { ...hs2019, Digest: `${hs2019.Digest},${sha512}` })).status).toBe(403);
  });

  test('refuses a missing, wrong or stale signature and a digest of another body', async () => {
    const body = activity();
    const signed = remote.signedHeaders(inboxUrl(), body);
    const unsigned = await post(body, { 'Content-Type': 'application/activity+json', Date: signed.Date, Digest: signed.Digest });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.message).toContain('no Signature header');

    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect((await post(body, remote.signedHeaders(inboxUrl(), body, { key: otherKey }))).status).toBe(403);

    const digest = await post(body, remote.signedHeaders(inboxUrl(), body, { digestOf: '{"type":"Delete"}' }));
    expect(digest.status).toBe(400);
    expect(digest.body.message).toContain('Digest');

    const stale = await post(body, remote.signedHeaders(inboxUrl(), body, { date: new Date(Date.now() - 10 * 60_000) }));
    expect(stale.status).toBe(400);
    expect(stale.body.message).toContain('clock skew');

    // Signed for another inbox: the request target is part of what is signed.
    const elsewhere = remote.signedHeaders(`${iriOf(hidden.id)}/inbox`, body);
    expect((await post(body, elsewhere)).status).toBe(403);
  });

  test('does not fetch a key from a host the outbound allow-list refuses; an unfetchable key is refused', async () => {
    const body = activity();
    const fetches = remote.fetches;
    const keyId = `${remote.base.replace('127.0.0.1', 'localhost')}/actor#main-key`;
    const res = await post(body, remote.signedHeaders(inboxUrl(), body, { keyId }));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('BLOCKED_DOMAINS');
    expect(remote.fetches).toBe(fetches);
    const gone = await post(body, remote.signedHeaders(inboxUrl(), body, { keyId: `${remote.base}/gone#main-key` }));
    expect(gone.status).toBe(400);
    expect(gone.body.message).toContain('answered 404');
  });

  test('is 404 for a user the remote may not see', async () => {
    const body = activity();
    const url = `${iriOf(hidden.id)}/inbox`;
    expect((await post(body, remote.signedHeaders(url, body), url)).status).toBe(404);
  });
});

test('a disabled plugin serves none of its routes', async () => {
  const plain = await startServer({ plugins: { activitypub: { enabled: false, package: path.join(__dirname, '..') } } });
  try {
    const user = await plain.user('bob');
    expect((await plain.api('GET', personPath(user.id))).status).toBe(404);
    expect((await plain.api('POST', `${personPath(user.id)}/inbox`, { rawBody: '{}' })).status).toBe(404);
    const finger = await plain.api('GET', `//.well-known/webfinger?resource=${encodeURIComponent(`acct:bob@${new URL(plain.url).host}`)}`);
    expect(finger.status).toBe(404);
  } finally {
    await plain.close();
  }
});
