#!/usr/bin/python3
"""Checks the desktop file, metainfo and MIME package as built (translations merged):
they name the same application, carry the German and French translations, and the
MIME package maps *.onnx to application/x-onnx once installed.

Usage: check_data.py DESKTOP METAINFO MIME_XML"""
import configparser
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

APP_ID = 'io.github.onyxviewer.Onyx'
MIME = 'application/x-onnx'
LANGS = ('de', 'fr')
XML_LANG = '{http://www.w3.org/XML/1998/namespace}lang'
SRC_DATA = os.path.dirname(os.path.abspath(__file__))
problems = []


def expect(cond, what):
    if not cond:
        problems.append(what)


def check_desktop(path):
    parser = configparser.RawConfigParser(interpolation=None, strict=True)
    parser.optionxform = str
    parser.read(path, encoding='utf-8')
    entry = parser['Desktop Entry']
    expect(os.path.basename(path) == APP_ID + '.desktop', 'desktop file is not named after the app id')
    expect(entry.get('Icon') == APP_ID, 'desktop Icon is not the app id')
    expect(entry.get('Exec', '').split()[0] == 'onyx', 'desktop Exec does not run onyx')
    expect(MIME in entry.get('MimeType', '').split(';'), f'desktop MimeType lacks {MIME}')
    expect(entry.get('Categories') == 'Development;Science;', 'desktop Categories changed')
    for key in ('GenericName', 'Comment', 'Keywords'):
        for lang in LANGS:
            value = entry.get(f'{key}[{lang}]')
            expect(value and value != entry.get(key), f'desktop {key}[{lang}] is not translated')
    for lang in LANGS:
        expect(entry.get(f'Keywords[{lang}]', '').endswith(';'), f'Keywords[{lang}] must end with ;')


def check_metainfo(path):
    root = ET.parse(path).getroot()
    expect(root.findtext('id') == APP_ID, 'metainfo id is not the app id')
    launchable = root.find("launchable[@type='desktop-id']")
    expect(launchable is not None and launchable.text == APP_ID + '.desktop',
           'metainfo launchable is not the desktop file')
    binaries = {b.text for b in root.findall('provides/binary')}
    expect(binaries == {'onyx', 'onyx-cli'}, f'metainfo provides binaries {binaries}')
    expect(MIME in {m.text for m in root.findall('provides/mediatype')},
           f'metainfo does not provide {MIME}')
    for lang in LANGS:
        expect(root.find(f"summary[@{XML_LANG}='{lang}']") is not None,
               f'metainfo summary not translated into {lang}')
        for desc in root.iter('description'):
            untranslated = [p for p in desc if XML_LANG not in p.attrib]
            translated = [p for p in desc if p.attrib.get(XML_LANG) == lang]
            expect(len(translated) == len(untranslated),
                   f'metainfo: {len(translated)} of {len(untranslated)} paragraphs in {lang}')
    # Screenshots are raw files of the project repository; the file must be in the tree.
    prefix = 'https://raw.githubusercontent.com/onyxviewer/onyx/main/'
    images = [i.text for i in root.iter('image')]
    expect(images, 'metainfo has no screenshot')
    for url in images:
        expect(url.startswith(prefix) and
               os.path.isfile(os.path.join(SRC_DATA, '..', url[len(prefix):])),
               f'screenshot {url} is not a file of this repository')
    releases = root.findall('releases/release')
    expect(releases, 'metainfo has no release')
    expect(root.find('content_rating') is not None, 'metainfo has no content rating')


def check_mime(path):
    root = ET.parse(path).getroot()
    ns = '{http://www.freedesktop.org/standards/shared-mime-info}'
    for lang in LANGS:
        expect(root.find(f"{ns}mime-type/{ns}comment[@{XML_LANG}='{lang}']") is not None,
               f'MIME comment not translated into {lang}')
    tool = shutil.which('update-mime-database')
    if tool is None:
        problems.append('update-mime-database (shared-mime-info) is not installed')
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, 'mime', 'packages'))
        shutil.copy(path, os.path.join(tmp, 'mime', 'packages', APP_ID + '.xml'))
        subprocess.run([tool, os.path.join(tmp, 'mime')], check=True)
        with open(os.path.join(tmp, 'mime', 'globs2'), encoding='utf-8') as f:
            globs = [line.strip().split(':') for line in f if not line.startswith('#')]
        expect(any(g[1:3] == [MIME, '*.onnx'] for g in globs), '*.onnx is not mapped to ' + MIME)


check_desktop(sys.argv[1])
check_metainfo(sys.argv[2])
check_mime(sys.argv[3])
for p in problems:
    print(p)
print('ok' if not problems else f'{len(problems)} problems')
sys.exit(1 if problems else 0)
