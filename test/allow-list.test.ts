import http from 'node:http';
import type { AddressInfo } from 'node:net';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const net = require('@hearth/core/dist/net/allow-list') as typeof import('../core/kernel/src/net/allow-list');

// A real local HTTP server: the guarded client must reach it only when loopback is allowed.
let server: http.Server;
let base: string;
const hits: string[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url} auth=${req.headers.authorization ?? ''}`);
    if (req.url === '/to-link-local') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    if (req.url === '/to-self') return void res.writeHead(307, { location: '/final' }).end();
    if (req.url === '/big') return void res.end('x'.repeat(200_000));
    if (req.url === '/slow') return; // never answers
    res.end(`ok ${req.method}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('address classes', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd00::1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'special'],
    ['0.0.0.0', 'special'],
    ['::', 'special'],
    ['fe80::1', 'special'],
    ['224.0.0.1', 'special'],
    ['8.8.8.8', 'external'],
    ['172.32.0.1', 'external'],
    ['2001:4860:4860::8888', 'external'],
  ])('%s is %s', (ip, kind) => {
    expect(net.classifyAddress(ip)).toBe(kind);
  });
});

describe('webhook.ALLOWED_HOST_LIST', () => {
  test('external (the default) refuses loopback, private and link-local, allows public addresses', () => {
    const p = net.hostListPolicy('external');
    expect(p.refusal('example.com', '93.184.216.34')).toBeNull();
    expect(p.refusal('localhost', '127.0.0.1')).toMatch(/not allowed by webhook.ALLOWED_HOST_LIST/);
    expect(p.refusal('intranet', '10.0.0.5')).toMatch(/private/);
    expect(p.refusal('metadata', '169.254.169.254')).toMatch(/special/);
  });
  test('named classes, CIDRs and host globs combine; * allows everything', () => {
    const p = net.hostListPolicy('loopback, 192.168.0.0/16, *.corp.example, 10.9.9.9');
    expect(p.refusal('localhost', '::1')).toBeNull();
    expect(p.refusal('nas', '192.168.4.4')).toBeNull();
    expect(p.refusal('ci.corp.example', '10.0.0.1')).toBeNull();
    expect(p.refusal('x', '10.9.9.9')).toBeNull();
    expect(p.refusal('x', '10.9.9.8')).not.toBeNull();
    expect(p.refusal('example.com', '93.184.216.34')).not.toBeNull();
    expect(net.hostListPolicy('*').refusal('metadata', '169.254.169.254')).toBeNull();
  });
  test('an empty list refuses everything', () => {
    expect(net.hostListPolicy('').refusal('example.com', '93.184.216.34')).not.toBeNull();
  });
});

describe('migrations settings', () => {
  const policy = (migrations: Record<string, unknown>) => net.migrationsPolicy({ migrations } as any);
  test('local networks need ALLOW_LOCALNETWORKS', () => {
    expect(policy({}).refusal('localhost', '127.0.0.1')).toMatch(/ALLOW_LOCALNETWORKS/);
    expect(policy({ ALLOW_LOCALNETWORKS: true }).refusal('localhost', '127.0.0.1')).toBeNull();
    expect(policy({}).refusal('github.com', '140.82.112.3')).toBeNull();
  });
  test('BLOCKED_DOMAINS always refuses; a non-empty ALLOWED_DOMAINS must match', () => {
    expect(policy({ BLOCKED_DOMAINS: '*.evil.example' }).refusal('git.evil.example', '1.2.3.4')).toMatch(/BLOCKED_DOMAINS/);
    const p = policy({ ALLOWED_DOMAINS: 'github.com, *.gitlab.com' });
    expect(p.refusal('github.com', '140.82.112.3')).toBeNull();
    expect(p.refusal('foo.gitlab.com', '1.2.3.4')).toBeNull();
    expect(p.refusal('example.com', '1.2.3.4')).toMatch(/ALLOWED_DOMAINS/);
  });
});

describe('checkRemoteUrl', () => {
  const allowLocal = net.migrationsPolicy({ migrations: { ALLOW_LOCALNETWORKS: true } } as any);
  const strict = net.migrationsPolicy({ migrations: {} } as any);
  test.each([
    '/srv/git/other.git',
    '../other.git',
    'file:///srv/git/other.git',
    'ssh://git@127.0.0.1/x.git',
    'git://example.com/x.git',
    'ext::sh -c touch% /tmp/pwned',
  ])('refuses %s with a 422 even when local networks are allowed', async (address) => {
    await expect(net.checkRemoteUrl(address, allowLocal)).rejects.toMatchObject({ status: 422 });
  });
  test('resolves names: localhost is refused without ALLOW_LOCALNETWORKS, allowed with it', async () => {
    await expect(net.checkRemoteUrl('http://localhost:3000/x.git', strict)).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/ALLOW_LOCALNETWORKS/),
    });
    await expect(net.checkRemoteUrl('http://localhost:3000/x.git', allowLocal)).resolves.toBeInstanceOf(URL);
    await expect(net.checkRemoteUrl('http://[::1]:3000/x.git', strict)).rejects.toMatchObject({ status: 422 });
  });
  test('an unresolvable host is a 422, not a 500', async () => {
    await expect(net.checkRemoteUrl('https://no-such-host.invalid/x.git', strict)).rejects.toMatchObject({ status: 422 });
  });
});

describe('outboundRequest', () => {
  test('reaches a loopback receiver only when the list allows it', async () => {
    const res = await net.outboundRequest(
      `${base}/hello`,
      { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } },
      net.hostListPolicy('loopback'),
    );
    expect(res).toMatchObject({ status: 200, body: 'ok POST' });
    await expect(net.outboundRequest(`${base}/hello`, {}, net.hostListPolicy('external'))).rejects.toBeInstanceOf(net.OutboundRefusedError);
  });
  test('a host name is checked on the address it resolves to at connect time', async () => {
    const port = (server.address() as AddressInfo).port;
    const before = hits.length;
    await expect(net.outboundRequest(`http://localhost:${port}/named`, {}, net.hostListPolicy('external'))).rejects.toBeInstanceOf(
      net.OutboundRefusedError,
    );
    expect(hits.length).toBe(before);
    await expect(net.outboundRequest(`http://localhost:${port}/named`, {}, net.hostListPolicy('loopback'))).resolves.toMatchObject({
      status: 200,
    });
  });
  test('redirects are followed and each hop is checked', async () => {
    const res = await net.outboundRequest(`${base}/to-self`, { method: 'POST', body: 'x' }, net.hostListPolicy('loopback'));
    expect(res).toMatchObject({ status: 200, body: 'ok POST' });
    expect(res.url).toMatch(/\/final$/);
    await expect(net.outboundRequest(`${base}/to-link-local`, {}, net.hostListPolicy('loopback'))).rejects.toBeInstanceOf(
      net.OutboundRefusedError,
    );
  });
  test('the body is truncated and the deadline holds', async () => {
    const big = await net.outboundRequest(`${base}/big`, { maxBodyBytes: 1000 }, net.hostListPolicy('loopback'));
    expect(big.body.length).toBe(1000);
    expect(big.truncated).toBe(true);
    const started = Date.now();
    await expect(net.outboundRequest(`${base}/slow`, { timeoutMs: 300 }, net.hostListPolicy('loopback'))).rejects.toThrow(/timed out/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
