import type { ComponentChildren } from 'preact';
import type { PageViewer } from '../page-session';
import { userHref } from './common';

/** What every page template gets besides its own data: the site, the viewer and asset URLs. */
export interface PageKit {
  appName: string;
  viewer: PageViewer;
  /** The hashed URL of an asset (`hearth.css`, `hearth.js`, `highlight.css`, `diff.css`). */
  asset(name: string): string;
  /** Whether visitors may register. */
  registrationOpen: boolean;
  /** The path of the current page (for "sign in and come back" links). */
  path: string;
  /** Tabs other plugins added to the user settings (`webPagesRef`). */
  settingsTabs: ReadonlyArray<{ href: string; label: string }>;
}

/** The sign-in page, coming back to `path` afterwards. */
export function signInHref(path: string): string {
  return `/user/login?redirect_to=${encodeURIComponent(path)}`;
}

/** A form's hidden CSRF field; every form that changes something carries it. */
export function Csrf({ kit }: { kit: PageKit }) {
  return <input type="hidden" name="_csrf" value={kit.viewer.csrfToken} />;
}

export function Layout({
  kit,
  title,
  children,
  styles = [],
}: {
  kit: PageKit;
  title: string;
  children: ComponentChildren;
  styles?: string[];
}) {
  const { viewer } = kit;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title ? `${title} - ${kit.appName}` : kit.appName}</title>
        <link rel="icon" type="image/svg+xml" href={kit.asset('favicon.svg')} />
        <link rel="stylesheet" href={kit.asset('hearth.css')} />
        {styles.map((name) => (
          <link rel="stylesheet" href={kit.asset(name)} />
        ))}
        <script src={kit.asset('hearth.js')} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <nav aria-label="Site">
            <a class="brand" href="/">
              {kit.appName}
            </a>
            <a href="/explore/repos">Explore</a>
            {viewer.user ? (
              <>
                <a href="/repo/create">New repository</a>
                <a href="/org/create">New organization</a>
                <a href="/notifications">Notifications</a>
                {viewer.user.isAdmin && <a href="/admin">Site administration</a>}
                <a href="/user/settings">Your settings</a>
                <a href={userHref(viewer.user.name)} class="me">
                  {viewer.user.name}
                </a>
                <form method="post" action="/user/logout" class="inline">
                  <Csrf kit={kit} />
                  <button type="submit" class="link">
                    Sign out
                  </button>
                </form>
              </>
            ) : (
              <>
                <a href={signInHref(kit.path)}>Sign in</a>
                {kit.registrationOpen && <a href="/user/sign_up">Register</a>}
              </>
            )}
          </nav>
        </header>
        <main id="main">{children}</main>
        <footer class="site">
          Powered by Hearth · <a href="/api/swagger">API</a>
        </footer>
      </body>
    </html>
  );
}
