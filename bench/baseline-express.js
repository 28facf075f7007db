'use strict';
/**
 * The baseline the foundation benchmark compares Hearth with: a bare Express 5 app answering
 * the same two routes with the same JSON bodies Hearth returned, but with no auth, no database,
 * no logging and no middleware. The ratio hearth/baseline is then the cost of everything Hearth
 * adds on top of Express (and of nothing else: same Node, same machine, same run).
 *
 * Environment: BASELINE_VERSION_BODY and BASELINE_USER_BODY (JSON text, sent verbatim),
 * HOST (default 127.0.0.1), PORT (default 0 = any free port).
 * Prints "baseline express is listening on http://HOST:PORT/" once listening, like Hearth does.
 */
const express = require('express');

const versionBody = process.env.BASELINE_VERSION_BODY || '{"version":"unknown"}';
const userBody = process.env.BASELINE_USER_BODY || '{}';
// Parsed once and sent with res.json, as an Express handler normally would.
const version = JSON.parse(versionBody);
const user = JSON.parse(userBody);

const app = express();
app.get('/api/v1/version', (_req, res) => res.json(version));
app.get('/api/v1/user', (_req, res) => res.json(user));

const host = process.env.HOST || '127.0.0.1';
const server = app.listen(Number(process.env.PORT || 0), host, (err) => {
  if (err) throw err;
  console.log(`baseline express is listening on http://${host}:${server.address().port}/`);
});

// Graceful stop on SIGTERM, as Hearth does, so both are stopped the same way.
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
