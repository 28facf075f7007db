import fs from 'node:fs';
import path from 'node:path';
import { ZERO_ID } from './git';

/**
 * The server-side hooks of every repository. pre-receive refuses deleting the default branch,
 * writing the server's own refs (refs/pull/*, refs/hearth/*), and what protected branches forbid
 * the pusher (HEARTH_BRANCH_RULES, set by the transport: no push, no deletion, no force push) —
 * git shows the message to the pusher; post-receive hands the applied ref updates to the
 * server through the file named by HEARTH_PUSH_LOG. Neither interpolates anything a user sent.
 */
export function writeHooks(gitDir: string): void {
  const hooks = path.join(gitDir, 'hooks');
  fs.mkdirSync(hooks, { recursive: true });
  fs.writeFileSync(
    path.join(hooks, 'pre-receive'),
    `#!/bin/sh
default=$(git symbolic-ref -q HEAD)
updates=$(cat)
printf '%s\\n' "$updates" | {
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
} || exit 1
# Protected branches: HEARTH_BRANCH_RULES holds "<push|deny> <regex>" lines in precedence order for
# this pusher; the first rule whose regex matches a branch decides (one awk for the whole push).
if [ -n "$HEARTH_BRANCH_RULES" ]; then
  printf '%s\\n' "$updates" | awk '
    BEGIN {
      n = split(ENVIRON["HEARTH_BRANCH_RULES"], lines, "\\n")
      for (i = 1; i <= n; i++) { sp = index(lines[i], " "); verdict[i] = substr(lines[i], 1, sp - 1); re[i] = substr(lines[i], sp + 1) }
    }
    substr($3, 1, 11) == "refs/heads/" {
      b = substr($3, 12)
      for (i = 1; i <= n; i++) if (re[i] != "" && b ~ re[i]) { print verdict[i], $1, $2, b; break }
    }' | {
    while read verdict old new branch; do
      if [ "$new" = "${ZERO_ID}" ]; then
        echo "hearth: branch $branch is protected: it cannot be deleted" >&2
        exit 1
      fi
      if [ "$verdict" != push ]; then
        echo "hearth: branch $branch is protected: you are not allowed to push to it; open a pull request instead" >&2
        exit 1
      fi
      if [ "$old" != "${ZERO_ID}" ] && ! git merge-base --is-ancestor "$old" "$new"; then
        echo "hearth: branch $branch is protected from force push" >&2
        exit 1
      fi
    done
    exit 0
  } || exit 1
fi
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
