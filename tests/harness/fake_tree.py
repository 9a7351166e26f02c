"""Small git trees for the tests of the lint steps that walk a series
(w1-builds.sh, tools-builds.sh): a commit is a dict of files to write."""
import subprocess


def git(tree, *args):
    subprocess.run(['git', '-C', str(tree), '-c', 'user.name=t', '-c', 'user.email=t@example.invalid',
                    *args], check=True, capture_output=True)


def commit(tree, msg, files):
    """Write FILES ({path: text}) under TREE and commit every change, ignored
    files too (a fake base may carry Debian's .gitignore, which ignores all)."""
    for name, text in files.items():
        p = tree / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    git(tree, 'add', '-A', '-f')
    git(tree, 'commit', '-q', '-m', msg)
