#!/usr/bin/python3
"""Fails when a source with translatable strings is missing from po/POTFILES.in,
or when POTFILES.in lists a file that does not exist.

Usage: check_potfiles.py SOURCE_ROOT"""
import os
import re
import sys

# _("…"), N_("…"), C_("ctx", "…"), NC_(…), the plural helpers, and GtkBuilder's
# translatable="yes". The look-behind keeps g_("…")-like names from matching.
C_MARK = re.compile(r'(?<![A-Za-z0-9_])(?:N|C|NC)?_\s*\(\s*"|\b(?:g_d?n?gettext|g_dngettext|ngettext|g_dpgettext2)\s*\(')
UI_MARK = re.compile(r'translatable\s*=\s*"(?:yes|true|1)"')
# Data files whose text is translatable by their format, marked or not.
DATA_SUFFIXES = ('.desktop.in', '.metainfo.xml.in', '.gschema.xml', '.mime.xml.in')
SCANNED_DIRS = ('src', 'ui', 'data')


def read_potfiles(root):
    listed = []
    with open(os.path.join(root, 'po', 'POTFILES.in'), encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#'):
                listed.append(line)
    return listed


def needs_translation(path):
    if path.endswith(DATA_SUFFIXES):
        return True
    if path.endswith(('.c', '.h')):
        mark = C_MARK
    elif path.endswith('.ui'):
        mark = UI_MARK
    else:
        return False
    with open(path, encoding='utf-8', errors='replace') as f:
        return mark.search(f.read()) is not None


def main():
    root = os.path.abspath(sys.argv[1])
    listed = read_potfiles(root)
    problems = []
    for rel in listed:
        if not os.path.isfile(os.path.join(root, rel)):
            problems.append(f'po/POTFILES.in lists {rel}, which does not exist')
    if len(set(listed)) != len(listed):
        problems.append('po/POTFILES.in lists a file twice')

    found = []
    for top in SCANNED_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(('.', '_build')))
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                if needs_translation(path):
                    found.append(os.path.relpath(path, root))
    for rel in found:
        if rel not in listed:
            problems.append(f'{rel} has translatable strings but is not in po/POTFILES.in')

    for p in problems:
        print(p)
    print(f'{len(found)} files with translatable strings, {len(listed)} listed')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
