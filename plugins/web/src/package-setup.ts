/**
 * The copy-pasteable client setup of each package format (kept apart from the pages, without
 * templates, so that it can be checked for every format on its own).
 */

/** One titled snippet of a format's setup. */
export interface SetupBlock {
  title: string;
  code: string;
}

/** What a format's setup is made of: this server, the owner, the version and where its files live. */
export interface SetupContext {
  /** The site's public URL, with a trailing slash. */
  root: string;
  appName: string;
  owner: string;
  type: string;
  name: string;
  version: string;
  files: Array<{ name: string; key: string }>;
}

const unique = (values: string[]) => [...new Set(values)];
const segments = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/**
 * The copy-pasteable client configuration of a package's format, as each registry plugin's README
 * documents it, with this server's URL and the owner; null for a format without one.
 */
export function packageSetup(c: SetupContext): SetupBlock[] | null {
  const base = `${c.root}api/packages/${encodeURIComponent(c.owner)}/${c.type}`;
  const site = new URL(c.root).hostname.replace(/[^a-z0-9.-]/gi, '') || 'forge';
  const registry =
    c.appName
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^[^a-z]+|-+$/g, '') || 'hearth';
  const keyFile = `${site}-${c.owner}`.toLowerCase();
  const parts = (i: number) => unique(c.files.map((f) => f.key.split('|')[i] ?? ''));
  switch (c.type) {
    case 'cargo':
      return [
        {
          title: 'Registry (~/.cargo/config.toml)',
          code: `[registries.${registry}]\nindex = "sparse+${base}/"\n\n[registry]\nglobal-credential-providers = ["cargo:token"]`,
        },
        { title: 'Add the crate', code: `cargo add ${c.name}@${c.version} --registry ${registry}` },
      ];
    case 'go':
      return [{ title: 'Go module proxy', code: `export GOPROXY=${base} GOSUMDB=off GOFLAGS=-mod=mod\ngo get ${c.name}@${c.version}` }];
    case 'debian': {
      const pairs = unique(c.files.map((f) => f.key.replace('|', ' '))).filter((p) => p.trim());
      const sources = (pairs.length ? pairs : ['DISTRIBUTION COMPONENT']).map(
        (pair) =>
          `echo "deb [signed-by=/etc/apt/keyrings/${keyFile}.asc] ${base} ${pair}" | sudo tee -a /etc/apt/sources.list.d/${keyFile}.list`,
      );
      return [
        {
          title: 'apt source (signed-by the owner’s key)',
          code: [`sudo curl -fsSL ${base}/repository.key -o /etc/apt/keyrings/${keyFile}.asc`, ...sources, 'sudo apt-get update'].join(
            '\n',
          ),
        },
        { title: 'Install', code: `sudo apt-get install ${c.name}=${c.version}` },
      ];
    }
    case 'rpm':
      return [
        {
          title: 'dnf repository (.repo file)',
          code: parts(0)
            .map((group) => `sudo dnf config-manager --add-repo ${base}/${group ? segments(group) : ''}.repo`)
            .join('\n'),
        },
        { title: 'Install', code: `sudo dnf install ${c.name}-${c.version}` },
      ];
    case 'alpine': {
      const repos = unique(c.files.map((f) => f.key.split('|').slice(0, 2).join('/')));
      return [
        {
          title: 'apk repository (/etc/apk/repositories) and key',
          code: [
            `cd /etc/apk/keys && curl -JO ${base}/key`,
            ...repos.map((repo) => `echo "${base}/${segments(repo)}" >> /etc/apk/repositories`),
          ].join('\n'),
        },
        { title: 'Install', code: `apk update && apk add ${c.name}=${c.version}` },
      ];
    }
    case 'cran':
      return [{ title: 'R', code: `options(repos = c(getOption("repos"), "${registry}" = "${base}"))\ninstall.packages("${c.name}")` }];
    case 'conda': {
      const channels = parts(0).map((channel) => (channel ? `${base}/${segments(channel)}` : base));
      return [
        { title: 'Install', code: channels.map((url) => `conda install -c ${url} ${c.name}=${c.version}`).join('\n') },
        { title: '~/.condarc', code: `channels:\n${channels.map((url) => `  - ${url}`).join('\n')}\n  - conda-forge` },
      ];
    }
    case 'swift':
      return [
        { title: 'Registry', code: `swift package-registry set ${base}` },
        { title: 'Package.swift', code: `.package(id: "${c.name}", from: "${c.version}")` },
      ];
    case 'chef':
      return [
        { title: 'knife (~/.chef/knife.rb)', code: `knife[:supermarket_site] = '${base}'` },
        { title: 'Berkshelf (Berksfile)', code: `source '${base}'\n\ncookbook '${c.name}', '${c.version}'` },
      ];
    case 'generic':
      return [
        {
          title: 'Download',
          code: c.files
            .map((f) => `curl -OJ ${base}/${encodeURIComponent(c.name)}/${encodeURIComponent(c.version)}/${encodeURIComponent(f.name)}`)
            .join('\n'),
        },
      ];
    default:
      return null;
  }
}
