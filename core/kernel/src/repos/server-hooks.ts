import fs from 'node:fs';
import path from 'node:path';
import { ZERO_ID } from './git';

/**
 * The server-side hooks of every repository. pre-receive refuses deleting a ref when the pusher's
 * token lacks delete:repository (HEARTH_DELETE_REFUSED, the reason), deleting the default branch,
 * writing the server's own refs (refs/pull/*, refs/hearth/*), and what protected branches forbid
 * the pusher (HEARTH_REF_RULES: the transport asks protection/ref-protection.ts) —
 * git shows the message to the pusher; post-receive hands the applied ref updates to the
 * server through the file named by HEARTH_PUSH_LOG. Neither interpolates anything a user sent.
 */
export function writeHooks(gitDir: string): void {
  const hooks = path.join(gitDir, 'hooks');
  fs.mkdirSync(hooks, { recursive: true });
  fs.writeFileSync(path.join(hooks, 'pre-receive'), PRE_RECEIVE, { mode: 0o755 });
  fs.writeFileSync(path.join(hooks, 'post-receive'), POST_RECEIVE, { mode: 0o755 });
  current.add(gitDir);
}

/** Repositories whose hooks were written or checked by this process. */
const current = new Set<string>();

/**
 * Rewrite the hooks of a repository when they are not this version's (written by an older Hearth):
 * the transport calls it before every push, so an upgrade never runs a hook that misreads what the
 * server hands it (an older pre-receive would let protected-branch pushes through).
 */
export function ensureCurrentHooks(gitDir: string): void {
  if (current.has(gitDir)) return;
  const read = (name: string) => {
    try {
      return fs.readFileSync(path.join(gitDir, 'hooks', name), 'utf8');
    } catch {
      return '';
    }
  };
  if (read('pre-receive') !== PRE_RECEIVE || read('post-receive') !== POST_RECEIVE) writeHooks(gitDir);
  current.add(gitDir);
}

const PRE_RECEIVE = `#!/bin/sh
default=$(git symbolic-ref -q HEAD)
updates=$(cat)
printf '%s\\n' "$updates" | {
  while read old new ref; do
    if [ "$new" = "${ZERO_ID}" ] && [ -n "$HEARTH_DELETE_REFUSED" ]; then
      echo "hearth: cannot delete $ref: $HEARTH_DELETE_REFUSED" >&2
      exit 1
    fi
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
# Protected branches: HEARTH_REF_RULES holds, for this pusher, one line per rule in precedence
# order, "<regex>\\t<create>\\t<update>\\t<force>\\t<delete>", each verdict "ok" or why not
# (pulls/ref-protection.ts decides; this hook only tells the kinds of change apart). The first
# rule whose regex matches a branch decides (one awk for the whole push).
if [ -n "$HEARTH_REF_RULES" ]; then
  tab=$(printf '\\t')
  printf '%s\\n' "$updates" | awk '
    BEGIN {
      n = split(ENVIRON["HEARTH_REF_RULES"], lines, "\\n")
      for (i = 1; i <= n; i++) { sp = index(lines[i], "\\t"); re[i] = substr(lines[i], 1, sp - 1); verdicts[i] = substr(lines[i], sp + 1) }
    }
    substr($3, 1, 11) == "refs/heads/" {
      b = substr($3, 12)
      for (i = 1; i <= n; i++) if (re[i] != "" && b ~ re[i]) { print $1 "\\t" $2 "\\t" b "\\t" verdicts[i]; break }
    }' | {
    while IFS="$tab" read -r old new branch create update force delete; do
      if [ "$new" = "${ZERO_ID}" ]; then verdict=$delete
      elif [ "$old" = "${ZERO_ID}" ]; then verdict=$create
      elif git merge-base --is-ancestor "$old" "$new"; then verdict=$update
      else verdict=$force
      fi
      if [ "$verdict" != ok ]; then
        echo "hearth: branch $branch $verdict" >&2
        exit 1
      fi
    done
    exit 0
  } || exit 1
fi
exit 0
`;

const POST_RECEIVE = `#!/bin/sh
if [ -n "$HEARTH_PUSH_LOG" ]; then cat > "$HEARTH_PUSH_LOG"; else cat > /dev/null; fi
exit 0
`;
