// Prettier: one format for TypeScript and JavaScript; lines up to 140 characters.
'use strict';
module.exports = { printWidth: 140, singleQuote: true, trailingComma: 'all' };
