#!/usr/bin/python3
"""Checks every translation listed in po/LINGUAS against the sources as they are now:
a .pot is generated afresh with xgettext (the options of meson's 'glib' preset), and
each .po must compile with `msgfmt --check`, keep the same single mnemonic, and
translate every message of that .pot (none missing, empty or fuzzy).

Usage: check_po.py SOURCE_ROOT"""
import ast
import os
import subprocess
import sys
import tempfile

# meson's i18n 'glib' preset, so that this .pot is the one `onyx-pot` writes.
XGETTEXT_GLIB = [
    '--from-code=UTF-8', '--add-comments',
    '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
    '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3', '--keyword=g_dpgettext2:2c,3',
    '--flag=N_:1:pass-c-format', '--flag=C_:2:pass-c-format', '--flag=NC_:2:pass-c-format',
    '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
    '--flag=g_string_printf:2:c-format', '--flag=g_string_append_printf:2:c-format',
    '--flag=g_error_new:3:c-format', '--flag=g_set_error:4:c-format',
    '--flag=g_markup_printf_escaped:1:c-format', '--flag=g_log:3:c-format',
    '--flag=g_print:1:c-format', '--flag=g_printerr:1:c-format',
    '--flag=g_printf:1:c-format', '--flag=g_fprintf:2:c-format',
    '--flag=g_sprintf:2:c-format', '--flag=g_snprintf:3:c-format',
]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def msgids(po_text):
    """The msgids of a .po text (continuation lines joined), without the header."""
    ids, current = [], None
    for line in po_text.splitlines():
        if line.startswith('msgid '):
            current = [line[len('msgid '):]]
            ids.append(current)
        elif line.startswith('"') and current is not None:
            current.append(line)
        else:
            current = None
    joined = [''.join(ast.literal_eval(part) for part in parts) for parts in ids]
    return [m for m in joined if m]


def linguas(po_dir):
    langs = []
    with open(os.path.join(po_dir, 'LINGUAS'), encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0]
            langs.extend(line.split())
    return langs


def main():
    root = os.path.abspath(sys.argv[1])
    po_dir = os.path.join(root, 'po')
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, 'onyx.pot')
        rc, out = run(['xgettext', *XGETTEXT_GLIB, '--package-name=onyx', f'--directory={root}',
                       f'--files-from={os.path.join(po_dir, "POTFILES.in")}', f'--output={pot}'])
        if rc != 0:
            print(out)
            return 1
        with open(pot, encoding='utf-8') as f:
            n_messages = len(msgids(f.read()))
        print(f'{n_messages} messages in the sources')
        if n_messages < 1:
            problems.append('no messages extracted: is POTFILES.in empty?')

        langs = linguas(po_dir)
        if not langs:
            problems.append('po/LINGUAS lists no language')
        for lang in langs:
            po = os.path.join(po_dir, lang + '.po')
            if not os.path.isfile(po):
                problems.append(f'{lang}: listed in LINGUAS but {lang}.po is missing')
                continue
            rc, out = run(['msgfmt', '--check', '--check-accelerators=_', '--statistics',
                           '-o', os.path.join(tmp, lang + '.mo'), po])
            print(f'{lang}: {out.strip()}')
            if rc != 0:
                problems.append(f'{lang}: msgfmt --check failed')
            # Merging onto the fresh .pot shows what the .po lacks: anything new in the
            # sources comes out untranslated, anything reworded comes out fuzzy.
            merged = os.path.join(tmp, lang + '-merged.po')
            rc, out = run(['msgmerge', '--quiet', '--no-wrap', '-o', merged, po, pot])
            if rc != 0:
                problems.append(f'{lang}: msgmerge failed: {out}')
                continue
            for what, flag in (('untranslated', '--untranslated'), ('fuzzy', '--only-fuzzy')):
                rc, out = run(['msgattrib', flag, '--no-obsolete', merged])
                for msgid in msgids(out):
                    problems.append(f'{lang}: {what}: {msgid!r}')
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
