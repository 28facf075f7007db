import crypto from 'node:crypto';
import { Router } from 'express';

/**
 * Generated avatars: a 5×5 mirrored identicon, derived only from the hash in the URL, so
 * avatar_url always answers without storing images or calling an outside service.
 */
export function avatarRouter(): Router {
  const router = Router();
  router.get('/avatars/:hash', (req, res) => {
    const hash = crypto.createHash('sha256').update(req.params.hash).digest();
    const hue = (hash[0] * 360) / 256;
    const cells: string[] = [];
    for (let row = 0; row < 5; row++) {
      for (let col = 0; col < 3; col++) {
        if (hash[1 + row * 3 + col] % 2 === 0) continue;
        for (const x of new Set([col, 4 - col])) cells.push(`<rect x="${x * 16 + 8}" y="${row * 16 + 8}" width="16" height="16"/>`);
      }
    }
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" fill="#f0f0f0"/><g fill="hsl(${hue.toFixed(0)},55%,50%)">${cells.join('')}</g></svg>`;
    res.set('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(svg);
  });
  return router;
}
