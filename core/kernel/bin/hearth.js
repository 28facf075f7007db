#!/usr/bin/env node
// Committed launcher: npm links workspace bins at install time, before `dist/` is built.
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  console.error('hearth: not built yet; run `npm run build` (or `npm start`) in the Hearth checkout first');
  process.exit(2);
}
require(cli);
