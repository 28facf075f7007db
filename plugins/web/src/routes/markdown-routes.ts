import type { WebRoutes } from '../web-routes';

/** The comment forms' Preview: the forge's markdown renderer (escapes raw HTML, refuses script URLs). */
export function markdownRoutes(web: WebRoutes): void {
  web.pages.post('/-/markdown', (req, res) => {
    const text = typeof req.body.text === 'string' ? req.body.text : '';
    const context = typeof req.body.context === 'string' && /^[\w.-]+\/[\w.-]+$/.test(req.body.context) ? req.body.context : '';
    res
      .set('Cache-Control', 'no-store')
      .type('html')
      .send(web.markdown.render(text, { mode: 'comment', context }));
  });
}
