"""The documentation: README.md and docs/*.md link only to files of the
repository (every relative link, and its #anchor, resolves; nothing links
outside it), README.md stays short, each docs page opens with a title and a
sentence saying what it is for, and scripts/check-patch-counts.py finds no
stale patch count in them or in the cover letters. Each check also runs on a
small made-up repository where it must fail."""
import pathlib
import re
import subprocess

TOP = pathlib.Path(__file__).parent.parent.parent
PATCH_COUNTS = TOP / 'scripts' / 'check-patch-counts.py'
README_MAX_LINES = 160

LINK = re.compile(r'!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')
URL = re.compile(r'\b(?:https?|ftp)://[^\s)>\]]+')


def doc_files(top):
    return [top / 'README.md'] + sorted((top / 'docs').glob('*.md'))


def prose(text):
    """TEXT without fenced code blocks and inline code spans, line for line"""
    out, fenced = [], False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            out.append('')
            continue
        out.append('' if fenced else re.sub(r'`[^`]*`', '``', line))
    return out


def slug(heading):
    """GitHub's anchor for a Markdown heading's text"""
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading)   # a link's text only
    text = text.replace('`', '').strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def raw_headings(path):
    """headings outside fenced code, with their inline code kept"""
    fenced = False
    for line in path.read_text().split('\n'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
        elif not fenced:
            m = re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
            if m:
                yield m.group(1)


def heading_anchors(path):
    seen, out = {}, set()
    for h in raw_headings(path):
        s = slug(h)
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f'{s}-{n}')
    return out


def link_problems(top, files=None):
    """one line per link that leaves TOP or names nothing in it"""
    top = top.resolve()
    problems = []
    for f in files if files is not None else doc_files(top):
        if not f.exists():
            continue
        rel = f.relative_to(top)
        raw = f.read_text()
        if '../shared' in raw:
            problems.append(f'{rel}: names ../shared, outside the repository')
        for lineno, line in enumerate(prose(raw), 1):
            for m in URL.finditer(line):
                problems.append(f'{rel}:{lineno}: {m.group(0)} leaves the repository')
            for m in LINK.finditer(line):
                target = m.group(1)
                if not target:
                    problems.append(f'{rel}:{lineno}: an empty link')
                    continue
                if re.match(r'[A-Za-z][A-Za-z0-9+.-]*:', target):
                    if not URL.match(target):   # a URL was reported above
                        problems.append(f'{rel}:{lineno}: {target} leaves the repository')
                    continue
                path, _, anchor = target.partition('#')
                dest = (f.parent / path).resolve() if path else f.resolve()
                if path.startswith('/') or (dest != top and top not in dest.parents):
                    problems.append(f'{rel}:{lineno}: {target} leaves the repository')
                    continue
                if not dest.exists():
                    problems.append(f'{rel}:{lineno}: {target}: no such file')
                    continue
                if anchor and dest.suffix == '.md' and anchor not in heading_anchors(dest):
                    problems.append(f'{rel}:{lineno}: {target}: {dest.name} has no heading #{anchor}')
    return problems


def page_problems(top):
    """docs pages that do not open with '# Title', a blank line and a sentence"""
    problems = []
    for f in sorted((top / 'docs').glob('*.md')):
        lines = f.read_text().split('\n')
        rel = f.relative_to(top)
        if not lines or not re.match(r'# \S', lines[0]):
            problems.append(f'{rel}: does not start with a "# " title')
            continue
        body = lines[1:]
        while body and not body[0].strip():
            body.pop(0)
        para = []
        for line in body:
            if not line.strip():
                break
            para.append(line.strip())
        first = ' '.join(para)
        if not re.match(r'[A-Z]', first) or '.' not in first or first.startswith(('|', '```')):
            problems.append(f'{rel}: the title is not followed by a sentence saying what the page is for')
    return problems


def patch_counts(top, *files):
    return subprocess.run(['python3', str(PATCH_COUNTS), '--top', str(top), *files],
                          capture_output=True, text=True)


# -- the repository ------------------------------------------------------

def test_links_stay_in_the_repository_and_resolve():
    assert link_problems(TOP) == []


def test_readme_is_short():
    n = len((TOP / 'README.md').read_text().split('\n')) - 1
    assert n <= README_MAX_LINES, f'README.md has {n} lines, at most {README_MAX_LINES}'


def test_docs_pages_open_with_a_title_and_a_sentence():
    assert (TOP / 'docs').is_dir()
    assert page_problems(TOP) == []


def test_patch_counts_match_the_series():
    r = patch_counts(TOP)
    assert r.returncode == 0, r.stdout + r.stderr


def test_am_check_recipe_is_where_am_check_reads_it():
    script = (TOP / 'scripts' / 'am-check.sh').read_text()
    doc = re.search(r'^RECIPE_DOC=(\S+)$', script, re.M).group(1)
    text = (TOP / doc).read_text()
    for base in ('6.12', '7.3'):
        mark = '<!-- am-check: recipe -->' if base == '6.12' else f'<!-- am-check: recipe {base} -->'
        assert mark + '\n```sh\n' in text, mark
        block = text.split(mark + '\n')[1].split('```')[1]
        assert 'xargs git am --3way' in block
        assert f'P=/path/to/knapid/patches/{base}\n' in block


# -- the checks on made-up repositories ----------------------------------

def made_up_repo(tmp_path, readme, pages=None):
    top = tmp_path / 'repo'
    (top / 'docs').mkdir(parents=True)
    (top / 'patches' / '6.12' / 'one').mkdir(parents=True)
    (top / 'patches' / '6.12' / 'series').write_text('# order and counts\none 3\ntwo 4\n')
    (top / 'README.md').write_text(readme)
    for name, text in (pages or {}).items():
        (top / 'docs' / name).write_text(text)
    return top


PAGE = '# A page\n\nThis page is for testing.\n\n## Some `code` here: yes\n\nText.\n'


def test_link_check_passes_good_links(tmp_path):
    top = made_up_repo(tmp_path, '# R\n\nSee [a](docs/a.md), [b](docs/a.md#some-code-here-yes), '
                       '[c](#r) and [d](patches/6.12/series).\n\n```\n[x](nowhere.md)\n```\n',
                       {'a.md': PAGE + 'Back to [the README](../README.md#r).\n'})
    assert link_problems(top) == []


def test_link_check_fails_on_a_dead_link(tmp_path):
    top = made_up_repo(tmp_path, '# R\n\nSee [gone](docs/gone.md).\n', {'a.md': PAGE})
    problems = link_problems(top)
    assert len(problems) == 1 and 'docs/gone.md: no such file' in problems[0]


def test_link_check_fails_on_a_dead_anchor(tmp_path):
    top = made_up_repo(tmp_path, '# R\n\nSee [a](docs/a.md#no-such-heading).\n', {'a.md': PAGE})
    problems = link_problems(top)
    assert len(problems) == 1 and 'has no heading #no-such-heading' in problems[0]


def test_link_check_fails_on_links_out_of_the_repository(tmp_path):
    top = made_up_repo(tmp_path, '# R\n\n[spec](../shared/SPEC.md), [web](https://example.com/x), '
                       'bare https://example.org and [up](docs/../../x.md).\n', {'a.md': PAGE})
    problems = '\n'.join(link_problems(top))
    assert 'names ../shared' in problems
    assert '../shared/SPEC.md leaves the repository' in problems
    assert 'https://example.com/x leaves the repository' in problems
    assert 'https://example.org leaves the repository' in problems
    assert 'docs/../../x.md leaves the repository' in problems


def test_page_check_fails_without_title_or_sentence(tmp_path):
    top = made_up_repo(tmp_path, '# R\n', {'a.md': PAGE, 'b.md': 'No title.\n',
                                           'c.md': '# Title\n\n| a | table |\n'})
    problems = page_problems(top)
    assert problems == ['docs/b.md: does not start with a "# " title',
                        'docs/c.md: the title is not followed by a sentence saying what the page is for']


def test_patch_counts_pass_on_the_right_counts(tmp_path):
    top = made_up_repo(tmp_path, '# R\n\nThe 7 patches: one (3 patches) and a 4-patch\nseries; '
                       'patches 1-2, patch 5/7, [PATCH 0/3], 5 kernel patches, at most 15 patches,\n'
                       'a 2019 patch set.\n', {'a.md': PAGE})
    r = patch_counts(top)
    assert r.returncode == 0, r.stdout


def test_patch_counts_fail_on_a_stale_count(tmp_path):
    top = made_up_repo(tmp_path, '# R\n\nAll of\nthe 43\npatches, and a 6-patch series.\n',
                       {'a.md': PAGE + '\nIts 9 patches.\n'})
    (top / 'patches' / '6.12' / 'one' / '0000-cover-letter.patch').write_text(
        'Subject: [PATCH 0/3] one\n\nThis series of 5 patches does one thing.\n')
    r = patch_counts(top)
    assert r.returncode == 1
    out = r.stdout.splitlines()
    assert [l.split(':')[0] + ':' + l.split(':')[1] for l in out] == [
        'README.md:4', 'README.md:5', 'docs/a.md:9', 'patches/6.12/one/0000-cover-letter.patch:3']
    assert 'states 43 patches' in out[0]
    assert 'the series files have 3 (6.12/one), 4 (6.12/two)' in out[0]


def test_patch_counts_history_rows_are_not_checked(tmp_path):
    top = made_up_repo(tmp_path, '# R\n', {'measured-times.md': PAGE + '\n| 2026-11-24 | abc1234 | '
                                           'make check, 40-patch series | 20 min |\n\nNow 40 patches.\n'})
    r = patch_counts(top)
    assert r.returncode == 1
    assert r.stdout.splitlines()[0].startswith('docs/measured-times.md:11:')
    assert len(r.stdout.splitlines()) == 1
