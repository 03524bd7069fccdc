#!/usr/bin/python3
"""Fails when yelp-check has anything to say about the manual's pages (Mallard
validity, links, ids, media, orphans), when a page in C/ is not in help/meson.build
(it would not be installed), or when problems.page lacks the section of a problem kind
the core reports: the app links each Problems row to help:onyx/problems#KIND.

Usage: check_help.py YELP_CHECK ONYX_VALIDATE_C PAGE..."""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

MALLARD = '{http://projectmallard.org/1.0/}'
# The kinds' names for --json are those of onyx_problem_kind_name(); the checker's
# finding is "onnx-checker" there and "checker" in the manual.
SECTION_OF_KIND = {'onnx-checker': 'checker'}


def fail(message):
    print(f'check_help: {message}', file=sys.stderr)
    sys.exit(1)


def yelp_check(tool, *args):
    run = subprocess.run([tool, *args], capture_output=True, text=True)
    said = (run.stdout + run.stderr).strip()
    if run.returncode != 0 or said:
        fail(f'yelp-check {args[0]} (exit {run.returncode}):\n{said}')


def main():
    if len(sys.argv) < 4:
        fail('no pages to check')
    tool, validate_c, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    folder = os.path.dirname(os.path.abspath(pages[0]))

    on_disk = sorted(f for f in os.listdir(folder) if f.endswith('.page'))
    listed = sorted(os.path.basename(p) for p in pages)
    if on_disk != listed:
        fail(f'pages in {folder} and in help/meson.build differ: {on_disk} against {listed}')

    yelp_check(tool, 'validate', *pages)
    for check in ('links', 'ids', 'media', 'orphans'):
        yelp_check(tool, check, folder)

    with open(validate_c, encoding='utf-8') as f:
        kinds = re.findall(r'\[ONYX_PROBLEM_\w+\]\s*=\s*"([a-z-]+)"', f.read())
    if not kinds:
        fail(f'no problem kinds found in {validate_c}')
    wanted = {SECTION_OF_KIND.get(kind, kind) for kind in kinds}
    problems = ET.parse(os.path.join(folder, 'problems.page')).getroot()
    sections = {s.get('id') for s in problems.iter(MALLARD + 'section')}
    if wanted - sections:
        fail(f'problems.page has no section for {sorted(wanted - sections)}')
    if sections - wanted:
        fail(f'problems.page has sections for no problem kind: {sorted(sections - wanted)}')
    print(f'{len(pages)} pages checked; problems.page has the {len(wanted)} problem kinds')


main()
