#!/usr/bin/env python3
"""To: and Cc: for a series, as netdev's CI checks them (cc_maintainers).

usage: cc-series.py write|check TREE AUTHORS DIR...

For each patch of each series DIR (its `series` file), the recipients are
what TREE's scripts/get_maintainer.pl names for it (run in TREE without git:
the bases are tarballs without history) and the people get_maintainer.pl's
--fixes adds for each commit its Fixes: tags name: the commit's authors and
everyone who signed it off, acked or reviewed it. Those come from TREE's
git history when it holds the commit, else from AUTHORS
('SHA1 "SUBJECT" Name <address>, ...' lines, patches/upstream-authors),
whose SUBJECT must be the one the Fixes: tag quotes. Maintainers go in To:,
everyone else (reviewers, lists, the Fixes: targets' people) in Cc:. A series for a netdev tree ([PATCH net] or
[PATCH net-next]) goes to netdev in full, each patch too. A cover letter
(0000-cover-letter.patch) goes to everyone any patch of its series goes to.

write: replace the To:/Cc: headers of every file with these.
check: print every address a file's To:/Cc: lacks; exit 1 if any does.
"""
import os
import re
import subprocess
import sys

# every Fixes: line; a subject not quoted as ("...") is an error below
FIXES = re.compile(r'^Fixes: ([0-9a-f]{12,40})(?: \("(.*)"\))?', re.M)
# the trailers get_maintainer.pl's --fixes reads (its @signature_tags)
SIGNERS = re.compile(r'^(?:Signed-off-by|Reviewed-by|Acked-by):\s*(.+@.+)$', re.M)
ADDR = re.compile(r'<([^>]+)>|([^\s<>,"]+@[^\s<>,"]+)')
NETDEV = 'netdev@vger.kernel.org'
NETDEV_TREE = re.compile(r'^Subject: \[PATCH net(-next)?[ \]]', re.M)
PERSON = re.compile(r'[^,<]*<[^>]+>')
COVER = '0000-cover-letter.patch'


def address(entry):
    """The bare lower-case address of NAME <ADDR> or ADDR."""
    m = ADDR.search(entry)
    return (m.group(1) or m.group(2)).lower() if m else entry.lower()


def get_maintainer(tree, patch):
    """(to, cc) for PATCH: lists of "Name <addr>" or "addr" entries."""
    res = subprocess.run(
        ['perl', 'scripts/get_maintainer.pl', '--no-git', '--no-git-fallback',
         '--no-fixes', os.path.abspath(patch)],
        cwd=tree, capture_output=True, text=True, check=False,
        # the order of its output follows Perl's hash order: fix it
        env=dict(os.environ, PERL_HASH_SEED='0', PERL_PERTURB_KEYS='0'))
    if res.returncode != 0:
        sys.exit(f'get_maintainer.pl failed on {patch}: {res.stderr.strip()}')
    to, cc = [], []
    for line in res.stdout.splitlines():
        entry, _, role = line.partition(' (')
        if not entry.strip():
            continue
        (to if 'maintainer:' in role else cc).append(entry.strip())
    return to, cc


def from_history(tree, sha):
    """(subject, people) of commit SHA in TREE's git history, or None."""
    res = subprocess.run(['git', '-C', tree, 'log', '-1', '--format=%s%n%an <%ae>%n%b',
                          f'{sha}^{{commit}}', '--'],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0 or not res.stdout:
        return None
    subject, author, body = (res.stdout.split('\n', 2) + ['', ''])[:3]
    return subject, [author] + [m.strip() for m in SIGNERS.findall(body)]


def blamed(tree, text, authors):
    """The people of the commits TEXT's Fixes: tags name."""
    out = []
    for sha, subject in FIXES.findall(text):
        if not subject:
            sys.exit(f'Fixes: {sha} does not quote its subject as ("...")')
        found = from_history(tree, sha)
        if found is None:
            for known, known_subject, who in authors:
                if known.startswith(sha) or sha.startswith(known):
                    found = known_subject, who
                    break
            else:
                sys.exit(f'Fixes: {sha} has no line in the authors file')
        if found[0] != subject:
            sys.exit(f'Fixes: {sha} ("{subject}"): that commit is "{found[0]}"')
        out.extend(found[1])
    return out


def merge(*lists):
    """Entries in order, each address once."""
    seen, out = set(), []
    for lst in lists:
        for e in lst:
            a = address(e)
            if a not in seen:
                seen.add(a)
                out.append(e)
    return out


def header(name, entries):
    if not entries:
        return ''
    return f'{name}: ' + ',\n    '.join(entries) + '\n'


def split_head(text):
    head, sep, body = text.partition('\n\n')
    return head + '\n', sep[1:] + body


def strip_recipients(head):
    """HEAD without its To:/Cc: headers (and their continuation lines)."""
    out, skip = [], False
    for line in head.splitlines(keepends=True):
        if re.match(r'(To|Cc): ', line):
            skip = True
            continue
        if skip and line[:1] in (' ', '\t'):
            continue
        skip = False
        out.append(line)
    return ''.join(out)


def recipients(head):
    """The addresses HEAD's To:/Cc: headers name."""
    got, on = set(), False
    for line in head.splitlines():
        if re.match(r'(To|Cc): ', line):
            on = True
            line = line[4:]
        elif not (on and line[:1] in (' ', '\t')):
            on = False
            continue
        for part in line.split(','):
            if part.strip():
                got.add(address(part))
    return got


def read_authors(path):
    authors = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            m = re.match(r'([0-9a-f]{12,40}) "([^"]*)" (.*)$', line)
            if not m:
                sys.exit(f'{path}: not a \'SHA1 "SUBJECT" people\' line: {line}')
            authors.append((m.group(1), m.group(2),
                            [w.strip() for w in PERSON.findall(m.group(3))]))
    return authors


def series_files(d):
    with open(os.path.join(d, 'series'), encoding='utf-8') as f:
        return [os.path.join(d, p.strip()) for p in f if p.strip()]


def wanted(tree, authors, d):
    """{file: (to, cc)} for series DIR D, its cover letter included."""
    want, all_to, all_cc = {}, [], []
    for p in series_files(d):
        with open(p, encoding='utf-8') as f:
            text = f.read()
        to, cc = get_maintainer(tree, p)
        lists = [NETDEV] if NETDEV_TREE.search(split_head(text)[0]) else []
        cc = merge(cc, lists, blamed(tree, text, authors))
        want[p] = (to, [e for e in cc if address(e) not in {address(t) for t in to}])
        all_to, all_cc = merge(all_to, to), merge(all_cc, cc)
    cover = os.path.join(d, COVER)
    if os.path.exists(cover):
        tos = {address(t) for t in all_to}
        want[cover] = (all_to, [e for e in all_cc if address(e) not in tos])
    return want


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ('write', 'check'):
        sys.exit(__doc__.strip().splitlines()[2])
    mode, tree, authors = sys.argv[1], sys.argv[2], read_authors(sys.argv[3])
    missing = 0
    for d in sys.argv[4:]:
        for p, (to, cc) in wanted(tree, authors, d).items():
            with open(p, encoding='utf-8') as f:
                head, body = split_head(f.read())
            if mode == 'write':
                head = strip_recipients(head) + header('To', to) + header('Cc', cc)
                with open(p, 'w', encoding='utf-8') as f:
                    f.write(head + body)
                continue
            lack = [e for e in to + cc if address(e) not in recipients(head)]
            if lack:
                missing += 1
                print(f'{os.path.relpath(p)}: not sent to {", ".join(lack)}')
    sys.exit(1 if missing else 0)


if __name__ == '__main__':
    main()
