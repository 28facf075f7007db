/** Reading the one thing the proxy needs from a go.mod file: the path its `module` directive declares. */

function unquote(token: string): string | null {
  if (token.startsWith('"')) {
    if (!token.endsWith('"') || token.length < 2) return null;
    try {
      return JSON.parse(token) as string;
    } catch {
      return null;
    }
  }
  if (token.startsWith('`')) return token.length >= 2 && token.endsWith('`') ? token.slice(1, -1) : null;
  return token;
}

function withoutComment(line: string): string {
  // Module paths cannot contain "//", so the first one outside a leading quote starts a comment.
  const at = line.indexOf('//');
  return (at >= 0 ? line.slice(0, at) : line).trim();
}

/**
 * The module path a go.mod declares (`module example.com/m`, quoted, or a one-line
 * `module ( … )` block), or null when it has no readable module directive.
 */
export function declaredModulePath(goMod: string): string | null {
  const lines = goMod.split(/\r?\n/).map(withoutComment);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!/^module(\s|\(|$)/.test(line)) continue;
    let rest = line.slice('module'.length).trim();
    if (rest === '(' || rest.startsWith('(')) {
      rest = rest.slice(1).trim();
      if (rest === '') rest = lines.slice(i + 1).find((l) => l !== '') ?? '';
      rest = rest.replace(/\)\s*$/, '').trim();
    }
    const token = rest.split(/\s+/)[0] ?? '';
    return token ? unquote(token) : null;
  }
  return null;
}

/** What the proxy serves as `.mod` for a module without go.mod (as the go command synthesizes it). */
export function synthesizedGoMod(modulePath: string): Buffer {
  return Buffer.from(`module ${modulePath}\n`);
}
