#!/usr/bin/env python3
"""usage: check-new-files.py REPO REV PATCH...

A patch that creates a file the base tree already has applies only to a tree
that lacks it (a base committed without its dotfiles, say): `git am` and
`git apply` stop on a real tree with "already exists". For each PATCH, in
order, check that every file it creates ("new file mode") is absent from
REV in git repository REPO and was not created by an earlier PATCH, and
that every file it modifies or deletes exists by then. Prints one line per
problem and exits 1 if there is any."""
import re
import subprocess
import sys


def in_base(repo, rev, path):
    return subprocess.run(['git', '-C', repo, 'cat-file', '-e', f'{rev}:{path}'],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def changes(patch):
    """(path, kind) for each file of a git format-patch file: kind is
    'new', 'deleted' or 'modified'."""
    out = []
    with open(patch, errors='replace') as f:
        text = f.read()
    for block in re.split(r'^(?=diff --git )', text, flags=re.M)[1:]:
        m = re.match(r'diff --git a/(\S+) b/(\S+)', block)
        if not m:
            continue
        header = block.split('\n@@', 1)[0]
        if re.search(r'^new file mode', header, re.M):
            out.append((m.group(2), 'new'))
        elif re.search(r'^deleted file mode', header, re.M):
            out.append((m.group(1), 'deleted'))
        elif re.search(r'^rename from', header, re.M):
            out.append((m.group(1), 'deleted'))
            out.append((m.group(2), 'new'))
        else:
            out.append((m.group(1), 'modified'))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    repo, rev, patches = sys.argv[1], sys.argv[2], sys.argv[3:]
    created, deleted, problems = set(), set(), []
    for p in patches:
        for path, kind in changes(p):
            exists = (path in created) or (path not in deleted and in_base(repo, rev, path))
            if kind == 'new' and exists:
                problems.append(f'{p}: creates {path}, which the tree already has')
            elif kind != 'new' and not exists:
                problems.append(f'{p}: changes {path}, which the tree does not have')
            if kind == 'new':
                created.add(path)
                deleted.discard(path)
            elif kind == 'deleted':
                created.discard(path)
                deleted.add(path)
    for line in problems:
        print(line)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
