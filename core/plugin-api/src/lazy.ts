/**
 * A value made on first use and kept: how Hearth defers heavy libraries (syntax highlighting, diff
 * rendering, OpenPGP, markdown…) that only some requests need, so they cost neither start-up time
 * nor idle memory. Write the `require` inside `make`, so the module resolves from the caller's
 * package: `const highlighter = lazy(() => require('highlight.js').default as HLJSApi);`.
 * In async code, `await import('…')` defers a module the same way.
 * @public
 */
export function lazy<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
