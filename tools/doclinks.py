#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""doclinks.py: the headings and links of the markdown docs (README.md, docs/*.md), as GitHub
renders them: each heading's anchor, each relative link's file and #anchor. Used by
tools/settings_docs.py (to point the settings table's section links at the guide holding
each section) and by tests/integration/test_docs.py (every link must resolve).

usage: doclinks.py [SOURCE_ROOT]   (prints every broken link; exit 1 if any)
"""
import os
import re
import sys

# [text](target) outside code (the text may span lines); the target has no spaces
LINK = re.compile(r'(?<!!)\[([^\[\]]*)\]\(([^()\s]+)\)')


def slug(heading):
    """GitHub's anchor of a heading: lower case, markup and punctuation dropped (hyphens and
    underscores kept), spaces to hyphens."""
    s = re.sub(r'[`*]', '', heading.strip().lower())
    s = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', s)
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')


def strip_code(text):
    """The text without fenced or indented code blocks and inline code spans, lines kept (so
    that line numbers still match), for finding headings and links."""
    out, fence, code, prev_blank = [], False, False, True
    for line in text.split('\n'):
        blank = line.strip() == ''
        if line.lstrip().startswith('```'):
            fence = not fence
            out.append('')
            continue
        if code and not (blank or line.startswith('    ')):
            code = False
        if not code and prev_blank and not blank and line.startswith('    '):
            code = True
        prev_blank = blank
        out.append('' if fence or code else re.sub(r'`[^`\n]*`', '', line))
    return '\n'.join(out)


def anchors(text):
    """The anchors of a markdown text's headings, duplicates numbered as GitHub does."""
    seen, out = {}, set()
    for m in re.finditer(r'^#{1,6} (.+)$', strip_code(text), re.M):
        a = slug(m.group(1))
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else '%s-%d' % (a, n))
    return out


def links(text):
    """(line number, target) of every link of a markdown text outside code."""
    body = strip_code(text)
    return [(body.count('\n', 0, m.start()) + 1, m.group(2)) for m in LINK.finditer(body)]


def doc_files(root):
    """README.md and docs/*.md, relative to @root."""
    docs = os.path.join(root, 'docs')
    return ['README.md'] + sorted(os.path.join('docs', f) for f in os.listdir(docs)
                                  if f.endswith('.md'))


def broken(root, files=None):
    """'FILE:LINE: link' for every relative link of @files (default doc_files) whose file or
    #anchor does not exist. Links with a scheme (http:, mailto:) are not followed."""
    bad, cache = [], {}
    for name in files or doc_files(root):
        path = os.path.join(root, name)
        for line, target in links(open(path).read()):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                continue
            file_part, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(dest):
                bad.append('%s:%d: %s: no file %s' % (name, line, target,
                                                      os.path.relpath(dest, root)))
                continue
            if not anchor:
                continue
            if not dest.endswith('.md'):
                bad.append('%s:%d: %s: an anchor into a file that is not markdown' % (
                    name, line, target))
                continue
            if dest not in cache:
                cache[dest] = anchors(open(dest).read())
            if anchor not in cache[dest]:
                bad.append('%s:%d: %s: %s has no heading #%s' % (
                    name, line, target, os.path.relpath(dest, root), anchor))
    return bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    bad = broken(root)
    print('\n'.join(bad) if bad else 'every link resolves')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
