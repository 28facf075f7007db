import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Router } from 'express';

/** A file the pages link to, served at a URL carrying its content hash (cached for a year, immutable). */
interface Asset {
  url: string;
  body: Buffer;
  type: string;
}

const OWN = path.join(__dirname, '..', 'assets');
/** The stylesheets and scripts pages use, by the name templates refer to them with. */
const SOURCES: Record<string, string> = {
  'hearth.css': path.join(OWN, 'hearth.css'),
  'hearth.js': path.join(OWN, 'hearth.js'),
  'favicon.svg': path.join(OWN, 'favicon.svg'),
  'highlight.css': require.resolve('highlight.js/styles/github.css'),
  'diff.css': require.resolve('diff2html/bundles/css/diff2html.min.css'),
};

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Everything is served by Hearth itself (no CDN); names change with content, so caches never go stale. */
export class Assets {
  private byName?: Map<string, Asset>;
  private byUrl?: Map<string, Asset>;

  private load(): Map<string, Asset> {
    if (this.byName) return this.byName;
    this.byName = new Map();
    this.byUrl = new Map();
    for (const [name, file] of Object.entries(SOURCES)) {
      const body = fs.readFileSync(file);
      const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 12);
      const ext = path.extname(name);
      const asset = { url: `/assets/${path.basename(name, ext)}.${hash}${ext}`, body, type: TYPES[ext] };
      this.byName.set(name, asset);
      this.byUrl.set(asset.url, asset);
    }
    return this.byName;
  }

  /** The URL of an asset, e.g. `url('hearth.css')` → `/assets/hearth.3f2a….css`. */
  url(name: string): string {
    const asset = this.load().get(name);
    if (!asset) throw new Error(`no asset named ${name}`);
    return asset.url;
  }

  router(): Router {
    const router = Router();
    router.get('/assets/:file', (req, res, next) => {
      this.load();
      const asset = this.byUrl!.get(`/assets/${req.params.file}`);
      if (!asset) return next();
      res.set({ 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=31536000, immutable' }).send(asset.body);
    });
    return router;
  }
}
