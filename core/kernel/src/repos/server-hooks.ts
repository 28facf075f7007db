import fs from 'node:fs';
import path from 'node:path';
import { ZERO_ID } from './git';

/**
 * The server-side hooks of every repository. pre-receive refuses deleting the default branch and
 * writing the server's own refs (refs/pull/*, refs/hearth/*) — git shows the message to the pusher; post-receive hands the applied ref updates to the
 * server through the file named by HEARTH_PUSH_LOG. Neither interpolates anything a user sent.
 */
export function writeHooks(gitDir: string): void {
  const hooks = path.join(gitDir, 'hooks');
  fs.mkdirSync(hooks, { recursive: true });
  fs.writeFileSync(
    path.join(hooks, 'pre-receive'),
    `#!/bin/sh
default=$(git symbolic-ref -q HEAD)
while read old new ref; do
  if [ "$ref" = "$default" ] && [ "$new" = "${ZERO_ID}" ]; then
    echo "hearth: refusing to delete the default branch \${ref#refs/heads/}; make another branch the default first" >&2
    exit 1
  fi
  case "$ref" in
    refs/pull/*|refs/hearth/*)
      echo "hearth: $ref is reserved for the server (pull requests); push to a branch or tag instead" >&2
      exit 1 ;;
  esac
done
exit 0
`,
    { mode: 0o755 },
  );
  fs.writeFileSync(
    path.join(hooks, 'post-receive'),
    `#!/bin/sh
if [ -n "$HEARTH_PUSH_LOG" ]; then cat > "$HEARTH_PUSH_LOG"; else cat > /dev/null; fi
exit 0
`,
    { mode: 0o755 },
  );
}
