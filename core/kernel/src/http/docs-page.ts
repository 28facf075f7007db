import path from 'node:path';
import express, { Router } from 'express';

/** The API docs page at /api/swagger (swagger-ui from the installed package, no CDN) and its assets. */
export function docsRouter(title: string): Router {
  const router = Router();
  const assets = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  router.use('/assets/swagger-ui', express.static(assets, { index: false, maxAge: '1d' }));
  router.get('/api/swagger', (_req, res) => {
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} API</title>
<link rel="stylesheet" href="../assets/swagger-ui/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="../assets/swagger-ui/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '../swagger.v1.json', dom_id: '#swagger-ui', deepLinking: true });</script>
</body></html>`);
  });
  return router;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
