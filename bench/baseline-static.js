'use strict';
/**
 * A bare Express 5 app serving one directory with express.static (serve-static: Range, ETag,
 * streaming from disk): the baseline file downloads are compared with. No auth, no database, no
 * logging. Environment: ROOT (the directory), HOST (default 127.0.0.1), PORT (default 0).
 * Prints "baseline static is listening on http://HOST:PORT/" once listening, like Hearth does.
 */
const express = require('express');

const app = express();
app.use(express.static(process.env.ROOT || '.'));

const host = process.env.HOST || '127.0.0.1';
const server = app.listen(Number(process.env.PORT || 0), host, (err) => {
  if (err) throw err;
  console.log(`baseline static is listening on http://${host}:${server.address().port}/`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
