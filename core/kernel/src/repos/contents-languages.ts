import { spawnGit } from './git';

/**
 * Language statistics as Gitea's /languages reports them: bytes per language over the files of a
 * commit, counting programming and markup languages only (as linguist/enry classify them: no
 * prose, data or configuration), and skipping dotfiles, vendored, generated and documentation
 * paths. Detection is by file name and extension — no content analysis, no .gitattributes overrides.
 */

const BY_EXTENSION: Record<string, string> = {};
const add = (language: string, extensions: string) => extensions.split(' ').forEach((e) => (BY_EXTENSION[e] = language));
add('Go', 'go');
add('Rust', 'rs');
add('C', 'c h');
add('C++', 'cc cpp cxx c++ hh hpp hxx h++ ipp tcc inl');
add('C#', 'cs csx');
add('Objective-C', 'm');
add('Objective-C++', 'mm');
add('Java', 'java');
add('Kotlin', 'kt kts');
add('Scala', 'scala sc');
add('Groovy', 'groovy gvy gradle');
add('Clojure', 'clj cljs cljc edn');
add('JavaScript', 'js mjs cjs jsx');
add('TypeScript', 'ts mts cts tsx');
add('CoffeeScript', 'coffee');
add('Python', 'py pyi pyw');
add('Ruby', 'rb rake gemspec');
add('PHP', 'php phtml');
add('Perl', 'pl pm');
add('Raku', 'raku rakumod p6');
add('Lua', 'lua');
add('R', 'r');
add('Julia', 'jl');
add('Swift', 'swift');
add('Dart', 'dart');
add('Elixir', 'ex exs');
add('Erlang', 'erl hrl');
add('Haskell', 'hs lhs');
add('OCaml', 'ml mli');
add('F#', 'fs fsi fsx');
add('Visual Basic .NET', 'vb');
add('Elm', 'elm');
add('Nim', 'nim');
add('Zig', 'zig');
add('D', 'd');
add('V', 'v');
add('Crystal', 'cr');
add('Fortran', 'f f90 f95 f03 f08');
add('Pascal', 'pas pp');
add('Assembly', 'asm s');
add('Shell', 'sh bash zsh ksh');
add('Fish', 'fish');
add('PowerShell', 'ps1 psm1 psd1');
add('Batchfile', 'bat cmd');
add('SQL', 'sql');
add('PLpgSQL', 'pgsql');
add('Emacs Lisp', 'el');
add('Common Lisp', 'lisp cl');
add('Scheme', 'scm ss');
add('Racket', 'rkt');
add('Vim Script', 'vim');
add('Makefile', 'mk mak');
add('CMake', 'cmake');
add('Dockerfile', 'dockerfile');
add('HCL', 'hcl tf');
add('Nix', 'nix');
add('Solidity', 'sol');
add('Verilog', 'sv svh');
add('VHDL', 'vhd vhdl');
add('GLSL', 'glsl vert frag');
add('Cuda', 'cu cuh');
add('WebAssembly', 'wat');
add('HTML', 'html htm xhtml');
add('CSS', 'css');
add('SCSS', 'scss');
add('Sass', 'sass');
add('Less', 'less');
add('Vue', 'vue');
add('Svelte', 'svelte');
add('Astro', 'astro');
add('TeX', 'tex sty cls');
add('Jupyter Notebook', 'ipynb');
add('Handlebars', 'hbs handlebars');
add('Twig', 'twig');
add('Smarty', 'tpl');

const BY_NAME: Record<string, string> = {
  makefile: 'Makefile',
  gnumakefile: 'Makefile',
  dockerfile: 'Dockerfile',
  containerfile: 'Dockerfile',
  'cmakelists.txt': 'CMake',
  rakefile: 'Ruby',
  gemfile: 'Ruby',
  vagrantfile: 'Ruby',
  jenkinsfile: 'Groovy',
  justfile: 'Just',
};

/** Vendored, generated and documentation paths linguist leaves out (a subset of its vendor.yml and documentation.yml). */
const EXCLUDED = [
  /(^|\/)(node_modules|bower_components|jspm_packages|vendor|[Vv]endor|third[-_]?party|3rd[-_]?party|Godeps|Pods|Carthage)\//,
  /(^|\/)(dist|build\/generated|__generated__|generated)\//,
  /^[Dd]ocs?\//,
  /(^|\/)[Dd]ocumentation\//,
  /(^|\/)[Ee]xamples?\//,
  /(^|\/)\./, // dotfiles and hidden directories
  /\.min\.(js|css)$/,
  /-min\.js$/,
  /\.(pb|pb\.gw)\.go$/,
  /_pb2\.py$/,
  /\.generated\.\w+$/,
  /(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|go\.sum|Cargo\.lock)$/,
];

/** The language of a path, or null when it does not count. */
export function languageOf(path: string): string | null {
  if (EXCLUDED.some((re) => re.test(path))) return null;
  const name = path.slice(path.lastIndexOf('/') + 1);
  const byName = BY_NAME[name.toLowerCase()];
  if (byName) return byName;
  if (/^Dockerfile\./i.test(name)) return 'Dockerfile';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? null) : null;
}

const CACHE_SIZE = 256;
const cache = new Map<string, Record<string, number>>();

/**
 * Bytes per language of a commit, cached by commit id (a commit's tree never changes) in a small
 * least-recently-used map. The tree is read with one streaming `ls-tree -r`.
 */
export async function languageStats(gitDir: string, commit: string): Promise<Record<string, number>> {
  const hit = cache.get(commit);
  if (hit) {
    cache.delete(commit);
    cache.set(commit, hit);
    return hit;
  }
  const totals: Record<string, number> = {};
  await new Promise<void>((resolve, reject) => {
    const child = spawnGit(['ls-tree', '-r', '-z', '--long', '--full-tree', commit], { gitDir }, ['ignore', 'pipe', 'pipe']);
    let rest = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      const records = (rest + chunk).split('\0');
      rest = records.pop() ?? '';
      for (const record of records) {
        const tab = record.indexOf('\t');
        const [mode, , , size] = record.slice(0, tab).split(/ +/);
        if (mode !== '100644' && mode !== '100755') continue;
        const language = languageOf(record.slice(tab + 1));
        if (language) totals[language] = (totals[language] ?? 0) + Number(size);
      }
    });
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`git ls-tree exited ${code}: ${stderr.trim()}`))));
  });
  const sorted = Object.fromEntries(Object.entries(totals).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  cache.set(commit, sorted);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return sorted;
}
