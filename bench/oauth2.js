'use strict';
/**
 * OAuth2 provider benchmark, one SQLite server with the web interface and the provider:
 *
 *   token endpoint  sequential, 20 warm-up + 100 measured each of
 *                   authorization code flow: GET /login/oauth/authorize (signed in, consented before:
 *                     answers the code at once) + POST /login/oauth/access_token (code + PKCE verifier,
 *                     ID token signed)
 *                   refresh: POST /login/oauth/access_token grant_type=refresh_token (rotating)
 *   API             GET /api/v1/user with `Authorization: Bearer <OAuth2 access token>`  vs  the same call
 *                   with a personal access token (`token <sha1>`): sequential keep-alive GETs, interleaved,
 *                   20 warm-up + 300 measured each
 *   Target: the OAuth2 token's p50 ≤ 2× the personal access token's. Both resolve their token from a
 *   short cache; the OAuth2 path then reads the account (one indexed query, so that a prohibited or
 *   deactivated account stops at once), which the kernel's token cache holds for personal tokens.
 */
const crypto = require('node:crypto');
const path = require('node:path');
const lib = require('./lib');

const TOKEN_ROUNDS = { warmup: 20, requests: 100 };
const LATENCY = { warmup: 20, requests: 300 };
const TARGET = 2;
const REDIRECT = 'http://127.0.0.1:9/callback';

async function run() {
  const work = lib.makeTempDir('hearth-bench-oauth2-');
  const warnings = [];
  let server;
  try {
    server = await lib.startServer({
      ...lib.hearthSpec(path.join(work, 'data'), ['web', 'oauth2-provider']),
      logFile: path.join(work, 'server.log'),
    });
    const pat = await lib.hearthToken(server, ['write:user']);
    const created = await lib.request(`${server.url}/api/v1/user/applications/oauth2`, {
      method: 'POST',
      headers: { authorization: `token ${pat}` },
      body: { name: 'bench CI', redirect_uris: [REDIRECT], confidential_client: true },
    });
    if (created.status !== 201) throw new Error(`creating the application answered ${created.status}: ${created.body}`);
    const app = JSON.parse(created.body);
    const client = 'Basic ' + Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64');
    const cookie = await lib.webSignIn(server);
    const flow = codeFlow(server, cookie, app.client_id, client);
    await flow.consent();

    const codeMs = [];
    const refreshMs = [];
    let tokens = await flow.exchange();
    for (let i = 0; i < TOKEN_ROUNDS.warmup + TOKEN_ROUNDS.requests; i++) {
      let t0 = performance.now();
      tokens = await flow.exchange();
      if (i >= TOKEN_ROUNDS.warmup) codeMs.push(performance.now() - t0);
      t0 = performance.now();
      tokens = await flow.refresh(tokens.refresh_token);
      if (i >= TOKEN_ROUNDS.warmup) refreshMs.push(performance.now() - t0);
    }
    const targets = [
      {
        label: 'GET /api/v1/user, Bearer OAuth2 token',
        url: `${server.url}/api/v1/user`,
        headers: { authorization: `Bearer ${tokens.access_token}` },
      },
      { label: 'GET /api/v1/user, personal access token', url: `${server.url}/api/v1/user`, headers: { authorization: `token ${pat}` } },
    ];
    const { stats } = await lib.sequentialGets(targets, LATENCY);
    const code = lib.latencySummary(codeMs);
    const refresh = lib.latencySummary(refreshMs);
    const f = (x) => x.toFixed(2);
    console.log(
      lib.table([
        ['request', 'p50 ms', 'p99 ms', 'mean ms'],
        ['authorize + code exchange (ID token)', f(code.p50), f(code.p99), f(code.mean)],
        ['refresh token exchange (ID token)', f(refresh.p50), f(refresh.p99), f(refresh.mean)],
        ...targets.map((t, i) => [t.label, f(stats[i].p50), f(stats[i].p99), f(stats[i].mean)]),
      ]),
    );
    const ratio = stats[0].p50 / stats[1].p50;
    const verdicts = [
      {
        name: 'bearer-vs-pat',
        met: ratio <= TARGET,
        line: `GET /api/v1/user p50, OAuth2 token / personal access token: ${f(ratio)}x — target ≤ ${TARGET}x`,
      },
    ];
    console.log('');
    lib.printVerdicts(verdicts, warnings);
    const stop = await lib.stopServer(server);
    server = null;
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');
    return {
      rounds: TOKEN_ROUNDS,
      latency: LATENCY,
      ms: { codeFlow: code, refresh, ...Object.fromEntries(targets.map((t, i) => [t.label, stats[i]])) },
      ratio,
      warnings,
      verdicts: verdicts.map(({ name, met, line }) => ({ name, met, line })),
    };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    require('node:fs').rmSync(work, { recursive: true, force: true });
  }
}

/** The authorization code flow of a confidential client with PKCE, as a CI system runs it. */
function codeFlow(server, cookie, clientId, clientAuth) {
  const post = async (form) => {
    const res = await fetch(`${server.url}/login/oauth/access_token`, {
      method: 'POST',
      headers: { authorization: clientAuth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`the token endpoint answered ${res.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const authorize = async () => {
    const verifier = crypto.randomBytes(32).toString('base64url');
    const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid profile email',
      state: crypto.randomBytes(8).toString('hex'),
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const res = await fetch(`${server.url}/login/oauth/authorize?${query}`, {
      headers: { cookie, accept: 'text/html' },
      redirect: 'manual',
    });
    return { res, verifier, query };
  };
  return {
    /** The first authorization: the consent page, granted. */
    async consent() {
      const { res, query } = await authorize();
      const html = await res.text();
      if (res.status !== 200) throw new Error(`the authorization page answered ${res.status}`);
      const csrf = /name="_csrf" value="([^"]*)"/.exec(html)[1];
      const form = new URLSearchParams({ ...Object.fromEntries(query), _csrf: csrf, granted: 'true' });
      const granted = await fetch(`${server.url}/login/oauth/grant`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
        redirect: 'manual',
      });
      if (granted.status !== 303) throw new Error(`granting answered ${granted.status}`);
    },
    async exchange() {
      const { res, verifier } = await authorize();
      await res.arrayBuffer();
      const code = res.status === 303 ? new URL(res.headers.get('location')).searchParams.get('code') : null;
      if (!code) throw new Error(`the authorization answered ${res.status} without a code`);
      return post({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
    },
    refresh: (refreshToken) => post({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  };
}

module.exports = { name: 'oauth2', run };
