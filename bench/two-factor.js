'use strict';
/**
 * Two-factor benchmark: what the X-Gitea-OTP check adds to basic auth by password, in the same run
 * on one SQLite server. The bench admin enrols through the web forms (code computed with otpauth
 * from the secret the page shows, as an app does); a second account without two-factor has the
 * same password cost.
 *
 *   latency  sequential keep-alive GET /api/v1/user, interleaved: 5 warm-up + 30 measured each of
 *            basic auth by password + X-Gitea-OTP (enrolled)  vs  basic auth by password (not enrolled)
 *            and, for reference, a token
 *   Target: password + OTP p50 ≤ 1.2× password alone p50 (the password hash dominates both).
 */
const path = require('node:path');
const { Secret, TOTP } = require('otpauth');
const lib = require('./lib');

const LATENCY = { warmup: 5, requests: 30 };
const TARGET = 1.2;

async function run() {
  const work = lib.makeTempDir('hearth-bench-two-factor-');
  const warnings = [];
  let server;
  try {
    server = await lib.startServer({
      ...lib.hearthSpec(path.join(work, 'data'), ['web', 'two-factor']),
      logFile: path.join(work, 'server.log'),
    });
    const token = await lib.hearthToken(server, ['read:user', 'write:admin']);
    const { username, password } = lib.HEARTH_ADMIN;
    const plain = await lib.createUser(server, `token ${token}`, 'plain', password);
    // After enrolment, the admin's password alone no longer mints tokens: everything else is made first.
    const secret = await enrol(server);
    const basic = (name) => 'Basic ' + Buffer.from(`${name}:${password}`).toString('base64');
    const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
    const url = `${server.url}/api/v1/user`;
    // One code for the whole run: the window accepts the next step too, and basic auth does not burn codes.
    const targets = [
      { label: 'password + X-Gitea-OTP (enrolled)', url, headers: { authorization: basic(username), 'x-gitea-otp': totp.generate() } },
      { label: 'password (not enrolled)', url, headers: { authorization: basic(plain) } },
      { label: 'token', url, headers: { authorization: `token ${token}` } },
    ];
    const { stats } = await lib.sequentialGets(targets, LATENCY);
    const f = (x) => x.toFixed(2);
    console.log(
      lib.table([
        ['GET /api/v1/user', 'p50 ms', 'p99 ms', 'mean ms'],
        ...targets.map((t, i) => [t.label, f(stats[i].p50), f(stats[i].p99), f(stats[i].mean)]),
      ]),
    );
    const ratio = stats[0].p50 / stats[1].p50;
    const verdicts = [lib.atMost('password + OTP p50 / password alone p50', ratio, TARGET)];
    console.log('');
    lib.printVerdicts(verdicts, warnings);
    const stop = await lib.stopServer(server);
    server = null;
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');
    return {
      latency: LATENCY,
      ms: Object.fromEntries(targets.map((t, i) => [t.label, stats[i]])),
      ratio,
      warnings,
      verdicts,
    };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    require('node:fs').rmSync(work, { recursive: true, force: true });
  }
}

/** Sign the bench admin in through the form and enrol in two-factor authentication; answers the secret. */
async function enrol(server) {
  const jar = new Map();
  const send = async (p, form) => {
    const res = await fetch(`${server.url}${p}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: form ? new URLSearchParams(form) : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return { status: res.status, html: await res.text() };
  };
  const csrf = (html) => /name="_csrf" value="([^"]*)"/.exec(html)[1];
  const login = await send('/user/login');
  const signedIn = await send('/user/login', {
    _csrf: csrf(login.html),
    user_name: lib.HEARTH_ADMIN.username,
    password: lib.HEARTH_ADMIN.password,
  });
  if (signedIn.status !== 303) throw new Error(`signing in answered ${signedIn.status}`);
  const page = await send('/user/settings/security/two_factor/enroll');
  const secret = /id="two-factor-secret">([A-Z2-7]+)</.exec(page.html)[1];
  const passcode = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate();
  const done = await send('/user/settings/security/two_factor/enroll', { _csrf: csrf(page.html), passcode });
  if (done.status !== 200) throw new Error(`confirming the enrolment answered ${done.status}`);
  return secret;
}

module.exports = { name: 'two-factor', run };
