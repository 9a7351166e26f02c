#!/usr/bin/env python3
"""netdev CI's (NIPA's) checks of the series' files, offline.

usage: nipa-checks.py CHECK TREE [SERIES_DIR...]

CHECK is one of
  shellcheck   shellcheck -x -e SC2317 -e SC2329 (NIPA's flags) on every
               shell file the series adds or changes under tools/testing
  ruff         ruff check on every Python file it adds or changes
  pylint       pylint with the tree's .pylintrc on the same files
  kernel-doc   scripts/kernel-doc -Wall -none on every .c and .h it touches
  proportions  per series (SERIES_DIR: a git format-patch directory), the
               lines it adds under tools/testing at most 2x those it adds
               to the kernel (Documentation and tools/testing not counted);
               a series that only edits existing tests is exempt

TREE is the kernel work tree with the series committed on the tag `base`.
As NIPA does, a file the series adds must be clean, and a file it changes
must not have more findings than before (its `base` version, checked next
to it so that includes and imports resolve). Unlike NIPA the checks look
at the series' end result, not at each patch. Exit 0 when nothing is found;
the findings are printed.
"""
import os
import re
import subprocess
import sys

VENV = os.path.expanduser(os.environ.get("VENV", "~/.cache/knapid/venv"))
RATIO = 2


def git(tree, *args):
    return subprocess.run(["git", "-C", tree, *args], check=True,
                          capture_output=True, text=True).stdout


def changed(tree):
    """[(status, path)] of the files the series adds (A) or modifies (M)."""
    out = git(tree, "diff", "--name-status", "--no-renames", "base", "HEAD")
    return [tuple(line.split("\t", 1)) for line in out.splitlines()
            if line[0] in "AM"]


def is_shell(tree, path):
    if path.endswith(".sh"):
        return True
    try:
        with open(os.path.join(tree, path), encoding="utf-8") as fp:
            return re.match(r"#!.*\b(ba)?sh\b", fp.readline()) is not None
    except (OSError, UnicodeDecodeError):
        return False


def run_tool(tree, cmd, path):
    """The findings (output lines) of CMD on PATH, run from TREE."""
    try:
        res = subprocess.run([*cmd, path], cwd=tree, capture_output=True,
                             text=True, check=False)
    except FileNotFoundError:
        sys.exit(f"{cmd[0]} is missing (make deps installs it)")
    lines = (res.stdout + res.stderr).splitlines()
    return [line for line in lines if line.strip()]


def compare(tree, files, cmd, keep=lambda line: True):
    """Findings of CMD on FILES, for the modified ones against base."""
    bad = []
    for status, path in files:
        after = [f for f in run_tool(tree, cmd, path) if keep(f)]
        if status == "A":
            if after:
                bad.append(f"{path} (added): {len(after)} findings")
                bad += [f"  {f}" for f in after]
            continue
        d, name = os.path.split(path)
        tmp = os.path.join(d, f".nipa-base-{name}")
        with open(os.path.join(tree, tmp), "w", encoding="utf-8") as fp:
            fp.write(git(tree, "show", f"base:{path}"))
        try:
            before = [f for f in run_tool(tree, cmd, tmp) if keep(f)]
        finally:
            os.unlink(os.path.join(tree, tmp))
        print(f"{path}: {len(before)} findings before the series, "
              f"{len(after)} after")
        if len(after) > len(before):
            bad.append(f"{path} (changed): {len(before)} -> {len(after)}")
            bad += [f"  {f}" for f in after]
    return bad


def check_files(check, tree):
    files = changed(tree)
    if check == "shellcheck":
        files = [f for f in files if f[1].startswith("tools/testing/")
                 and is_shell(tree, f[1])]
        cmd = ["shellcheck", "-x", "-e", "SC2317", "-e", "SC2329", "-f",
               "gcc"]
        keep = lambda line: True  # noqa: E731
    elif check in ("ruff", "pylint"):
        files = [f for f in files if f[1].endswith(".py")]
        if check == "ruff":
            cmd = [f"{VENV}/bin/ruff", "check", "--no-cache",
                   "--output-format", "pylint"]
        else:
            cmd = [f"{VENV}/bin/pylint", "--rcfile=.pylintrc",
                   "--score=n", "--persistent=n"]
        keep = lambda line: re.match(r"\S+:\d+:", line)  # noqa: E731
    elif check == "kernel-doc":
        files = [f for f in files if re.search(r"\.[ch]$", f[1])]
        cmd = ["scripts/kernel-doc", "-Wall", "-none"]
        keep = lambda line: True  # noqa: E731
    else:
        sys.exit(f"nipa-checks.py: unknown check {check}")
    for status, path in files:
        print(f"{check}: {path} ({'added' if status == 'A' else 'changed'})")
    return compare(tree, files, cmd, keep)


def added_lines(patch):
    """(kernel, tests) lines a format-patch file adds."""
    kernel = tests = 0
    path = None
    with open(patch, encoding="utf-8", errors="replace") as fp:
        for line in fp:
            if line.startswith("+++ "):
                path = line[6:].strip() if line[4:6] == "b/" else None
            elif line.startswith("+") and path:
                if path.startswith("tools/testing/"):
                    tests += 1
                elif not path.startswith("Documentation/"):
                    kernel += 1
    return kernel, tests


def creates_files(patch):
    """Whether a format-patch file creates a file."""
    with open(patch, encoding="utf-8", errors="replace") as fp:
        return any(line.startswith("new file mode ") for line in fp)


def proportions(dirs):
    """A series that adds no kernel line but only edits existing tests (a
    test fix or cleanup of its own) has no proportion to keep; one that
    creates a test file with no kernel line fails like any other."""
    bad = []
    for d in dirs:
        kernel = tests = 0
        new = False
        for name in sorted(os.listdir(d)):
            if re.match(r"\d{4}-", name) and not name.startswith("0000-"):
                k, t = added_lines(os.path.join(d, name))
                kernel, tests = kernel + k, tests + t
                new = new or creates_files(os.path.join(d, name))
        base = os.path.basename(d.rstrip('/'))
        if not kernel and not new:
            print(f"{base}: {tests} test lines, edits of existing tests only "
                  f"(no proportion applies)")
            continue
        ratio = f"{tests / kernel:.2f}x" if kernel else "no kernel lines"
        print(f"{base}: {kernel} kernel lines, "
              f"{tests} test lines ({ratio}; at most {RATIO}x)")
        if tests > RATIO * kernel:
            bad.append(f"{d}: {tests} test lines for {kernel} kernel lines")
    return bad


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    check, tree = sys.argv[1], sys.argv[2]
    if check == "proportions":
        bad = proportions(sys.argv[3:])
    else:
        bad = check_files(check, tree)
    for line in bad:
        print(line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
