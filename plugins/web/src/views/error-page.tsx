import { Layout, signInHref, type PageKit } from './layout';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign in required',
  403: 'Not allowed',
  404: 'Page not found',
  405: 'Not allowed here',
  409: 'Conflict',
  413: 'Too large',
  422: 'Cannot do that',
  429: 'Too many attempts',
  500: 'Something went wrong',
};

export function ErrorPage({ kit, status, message }: { kit: PageKit; status: number; message: string }) {
  const title = TITLES[status] ?? (status >= 500 ? TITLES[500] : 'Error');
  return (
    <Layout kit={kit} title={title}>
      <section class="error-page">
        <h1>
          {status} · {title}
        </h1>
        <p>{status === 404 ? 'The page does not exist, or you may not see it.' : message}</p>
        {status === 401 || (status === 404 && !kit.viewer.user) ? (
          <p>
            <a href={signInHref(kit.path)}>Sign in</a> to see more.
          </p>
        ) : null}
        <p>
          <a href="/">Go to the home page</a>
        </p>
      </section>
    </Layout>
  );
}
