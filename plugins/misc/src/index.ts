import path from 'node:path';
import fs from 'node:fs';
import type MarkdownIt from 'markdown-it';
import {
  ApiError,
  createServiceRef,
  definePlugin,
  lazy,
  ok,
  raw,
  type ApiOperation,
  type ApiRequest,
  type PluginContext,
} from '@hearth/plugin-api';

/** The forge's one markdown renderer (the `/markdown` routes' and the web pages'), for other plugins. @public */
export interface MarkdownRenderer {
  /**
   * HTML for `text`: raw HTML escaped, script URLs refused. `mode` as the API's (`markdown`, `gfm`,
   * `comment` — line breaks kept — or `wiki`); `context` a repository path (`owner/repo`) that
   * relative links resolve against.
   */
  render(text: string, options?: { mode?: string; context?: string }): string;
}

export const markdownRef = createServiceRef<MarkdownRenderer>('misc.markdown');

interface MiscSettings {
  /** Answer /nodeinfo (instance software and user counts); off for instances that prefer not to advertise. */
  nodeinfo: boolean;
}

interface MarkdownBody {
  Text?: string;
  Mode?: string;
  Context?: string;
  Wiki?: boolean;
}

const SCHEMAS_DIR = path.join(__dirname, '..', 'schemas');

/**
 * Gitea's miscellaneous API: `/version`, `/settings/{api,ui,repository,attachment}`,
 * `/markdown`, `/markdown/raw` and `/nodeinfo`. These answer any caller and any token whatever
 * its scope: clients probe them before they know what a token may do.
 */
export default definePlugin<MiscSettings>({
  name: 'misc',
  version: '0.1.0',
  apiVersion: '^2.0.0',
  description: "Gitea's miscellaneous endpoints: version, settings, markdown, nodeinfo",
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { nodeinfo: { type: 'boolean', default: true } },
  },
  provides: [markdownRef],
  apply(ctx) {
    ctx.services.provide(markdownRef, {
      render: (text, options = {}) => renderMarkdown(text, options.mode ?? 'gfm', options.context ?? '', ctx.forge.appUrl),
    });
    for (const file of fs.readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith('.json'))) {
      ctx.schemas.add(JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, file), 'utf8')));
    }
    ctx.hooks.http.routes.tap('misc', (routes) => {
      for (const op of operations(ctx)) routes.api(op);
    });
  },
});

function operations(ctx: PluginContext<MiscSettings>): ApiOperation[] {
  const config = ctx.forge.raw;
  // Instance-wide answers: markdown renders only the text it is given (Context shapes links, no repository is read).
  const common = { tag: 'miscellaneous', scopes: 'public' as const, access: 'anyone' as const };
  const ops: ApiOperation[] = [
    {
      ...common,
      method: 'get',
      path: '/version',
      operationId: 'getVersion',
      summary: 'Returns the version of the Gitea API this server speaks',
      responses: { 200: 'ServerVersion' },
      handler: () => ok({ version: ctx.forge.version }),
    },
    {
      ...common,
      tag: 'settings',
      method: 'get',
      path: '/settings/api',
      operationId: 'getGeneralAPISettings',
      summary: "Get instance's global settings for api",
      responses: { 200: 'GeneralAPISettings' },
      handler: () =>
        ok({
          max_response_items: ctx.forge.api.MAX_RESPONSE_ITEMS,
          default_paging_num: ctx.forge.api.DEFAULT_PAGING_NUM,
          default_git_trees_per_page: ctx.forge.api.DEFAULT_GIT_TREES_PER_PAGE,
          default_max_blob_size: ctx.forge.api.DEFAULT_MAX_BLOB_SIZE,
        }),
    },
    {
      ...common,
      tag: 'settings',
      method: 'get',
      path: '/settings/ui',
      operationId: 'getGeneralUISettings',
      summary: "Get instance's global settings for ui",
      responses: { 200: 'GeneralUISettings' },
      handler: () =>
        ok({ default_theme: config.ui.DEFAULT_THEME, allowed_reactions: config.ui.REACTIONS, custom_emojis: config.ui.CUSTOM_EMOJIS }),
    },
    {
      ...common,
      tag: 'settings',
      method: 'get',
      path: '/settings/repository',
      operationId: 'getGeneralRepositorySettings',
      summary: "Get instance's global settings for repositories",
      responses: { 200: 'GeneralRepoSettings' },
      handler: () =>
        ok({
          mirrors_disabled: config.repository.DISABLE_MIRRORS,
          http_git_disabled: config.repository.DISABLE_HTTP_GIT,
          migrations_disabled: config.repository.DISABLE_MIGRATIONS,
          stars_disabled: config.repository.DISABLE_STARS,
          time_tracking_disabled: !config.repository.ENABLE_TIME_TRACKING,
          lfs_disabled: !config.repository.LFS_ENABLED,
        }),
    },
    {
      ...common,
      tag: 'settings',
      method: 'get',
      path: '/settings/attachment',
      operationId: 'getGeneralAttachmentSettings',
      summary: "Get instance's global settings for Attachment",
      responses: { 200: 'GeneralAttachmentSettings' },
      handler: () =>
        ok({
          enabled: config.attachment.ENABLED,
          allowed_types: config.attachment.ALLOWED_TYPES,
          max_size: config.attachment.MAX_SIZE,
          max_files: config.attachment.MAX_FILES,
        }),
    },
    {
      ...common,
      method: 'post',
      path: '/markdown',
      operationId: 'renderMarkdown',
      summary: 'Render a markdown document as HTML',
      body: 'MarkdownOption',
      responses: { 200: { description: 'MarkdownRender', contentType: 'text/html' } },
      handler: (req: ApiRequest<MarkdownBody>) => {
        const { Text = '', Mode = 'markdown', Context = '', Wiki = false } = req.body;
        const mode = Wiki ? 'wiki' : Mode || 'markdown';
        return raw(200, 'text/html; charset=utf-8', renderMarkdown(Text, mode, Context, ctx.forge.appUrl));
      },
    },
    {
      ...common,
      method: 'post',
      path: '/markup',
      operationId: 'renderMarkup',
      summary: 'Render a markup document as HTML',
      body: 'MarkupOption',
      responses: { 200: { description: 'MarkupRender', contentType: 'text/html' }, 422: 'APIError' },
      handler: (req: ApiRequest<MarkdownBody & { FilePath?: string }>) => {
        const { Text = '', Mode = 'markdown', Context = '', Wiki = false, FilePath = '' } = req.body;
        let mode = Wiki ? 'wiki' : Mode || 'markdown';
        // Gitea's mode `file` renders by the file's extension; Markdown is the markup this forge renders.
        if (mode === 'file') {
          if (!/\.(md|markdown|mdown|mkd|livemd)$/i.test(FilePath)) {
            throw ApiError.unprocessable(`unsupported render extension: ${path.extname(FilePath) || FilePath || '(none)'}`);
          }
          mode = 'markdown';
        }
        return raw(200, 'text/html; charset=utf-8', renderMarkdown(Text, mode, contextPath(Context, ctx.forge.appUrl), ctx.forge.appUrl));
      },
    },
    {
      ...common,
      method: 'post',
      path: '/markdown/raw',
      operationId: 'renderMarkdownRaw',
      summary: 'Render raw markdown as HTML',
      bodyType: 'text',
      responses: { 200: { description: 'MarkdownRender', contentType: 'text/html' } },
      handler: (req: ApiRequest<string>) =>
        raw(200, 'text/html; charset=utf-8', renderMarkdown(req.body, 'markdown', '', ctx.forge.appUrl)),
    },
  ];
  if (ctx.settings.nodeinfo) {
    ops.push({
      ...common,
      method: 'get',
      path: '/nodeinfo',
      operationId: 'getNodeInfo',
      summary: 'Returns the nodeinfo of the server',
      responses: { 200: 'NodeInfo' },
      handler: async () =>
        ok({
          version: '2.1',
          software: { name: 'hearth', version: ctx.forge.version, repository: '', homepage: ctx.forge.appUrl },
          protocols: ['activitypub'],
          services: { inbound: [], outbound: ['rss2.0'] },
          openRegistrations: false,
          usage: { users: await ctx.users.stats(), localPosts: 0, localComments: 0 },
          metadata: {},
        }),
    });
  }
  return ops;
}

/** markdown-it's renderers, made by the first markdown rendered rather than at start. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const markdownIt = lazy(() => require('markdown-it') as typeof MarkdownIt);
const plain = lazy(() => new (markdownIt())({ html: false, linkify: true }));
const comment = lazy(() => new (markdownIt())({ html: false, linkify: true, breaks: true }));

/**
 * Render without raw HTML (markdown-it escapes it) and without dangerous link schemes
 * (markdown-it refuses javascript:, vbscript:, file: and non-image data: URLs). Relative links
 * resolve against Context, as Gitea does; wiki links point into the wiki.
 */
export function renderMarkdown(text: string, mode: string, context: string, appUrl: string): string {
  const engine = mode === 'gfm' || mode === 'comment' ? comment() : plain();
  const env = { base: context ? new URL(context.replace(/^\/*/, '') + (mode === 'wiki' ? '/wiki/' : '/'), appUrl).toString() : '' };
  const tokens = engine.parse(text, env);
  // Issue references (`#123`) link to the context repository's issue (Gitea redirects to the pull request if it is one).
  if (context && (mode === 'gfm' || mode === 'comment'))
    linkIssueReferences(tokens, new URL(context.replace(/^\/*/, '') + '/issues/', appUrl).toString());
  if (env.base) {
    const visit = (list: typeof tokens) => {
      for (const token of list) {
        if ((token.type === 'link_open' || token.type === 'image') && token.attrs) {
          const attr = token.type === 'image' ? 'src' : 'href';
          const value = token.attrGet(attr);
          if (value && !/^([a-z][a-z0-9+.-]*:|\/|#)/i.test(value)) token.attrSet(attr, new URL(value, env.base).toString());
        }
        if (token.children) visit(token.children);
      }
    };
    visit(tokens);
  }
  return engine.renderer.render(tokens, engine.options, env);
}

/** `Context` as a path below the forge: `owner/repo`, `/owner/repo`, or a full URL of this forge (Gitea's `/markup` takes URLs). */
export function contextPath(context: string, appUrl: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(context)) return context;
  if (context.startsWith(appUrl)) return context.slice(appUrl.length);
  try {
    return new URL(context).pathname;
  } catch {
    return '';
  }
}

type Tokens = ReturnType<MarkdownIt['parse']>;
const ISSUE_REF = /(^|[\s(])#(\d+)\b/g;

/** Replace `#123` in text outside links and code with a link to that issue, splitting the text token. */
function linkIssueReferences(tokens: Tokens, issuesUrl: string): void {
  for (const block of tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Tokens = [];
    let inLink = 0;
    for (const token of block.children) {
      if (token.type === 'link_open') inLink++;
      if (token.type === 'link_close') inLink--;
      if (token.type !== 'text' || inLink > 0 || !ISSUE_REF.test(token.content)) {
        out.push(token);
        continue;
      }
      ISSUE_REF.lastIndex = 0;
      const Token = token.constructor as new (type: string, tag: string, nesting: number) => (typeof tokens)[number];
      const text = (content: string) => Object.assign(new Token('text', '', 0), { content });
      let last = 0;
      for (const m of token.content.matchAll(ISSUE_REF)) {
        const start = m.index + m[1].length;
        out.push(text(token.content.slice(last, start)));
        const open = new Token('link_open', 'a', 1);
        open.attrs = [
          ['href', `${issuesUrl}${m[2]}`],
          ['class', 'ref-issue'],
        ];
        out.push(open, text(`#${m[2]}`), new Token('link_close', 'a', -1));
        last = start + 1 + m[2].length;
      }
      out.push(text(token.content.slice(last)));
    }
    block.children = out;
  }
}
