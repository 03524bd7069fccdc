#!/usr/bin/python3
"""Checks the Flatpak manifest without building it (that needs the network):
valid JSON, every source pinned, the app id and command those of the desktop file and
metainfo, sandbox holes limited to what a GUI needs, and the Onyx module pointed at
the onnx.proto the manifest installs, after building ONNX's library.

Usage: check_manifest.py MANIFEST DESKTOP METAINFO MESON_OPTIONS"""
import configparser
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

problems = []


def expect(cond, what):
    if not cond:
        problems.append(what)


def no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    dups = {k for k in keys if keys.count(k) > 1}
    if dups:
        raise ValueError(f'duplicate keys {sorted(dups)}')
    return dict(pairs)


# What a GTK app that opens files through portals needs, and nothing else.
ALLOWED_FINISH_ARGS = {'--share=ipc', '--socket=wayland', '--socket=fallback-x11', '--device=dri'}
REQUIRED_FINISH_ARGS = {'--share=ipc', '--socket=wayland', '--socket=fallback-x11'}
HEX64 = re.compile(r'^[0-9a-f]{64}$')
HEX40 = re.compile(r'^[0-9a-f]{40}$')
OLDEST_SUPPORTED_GNOME = 50
# The ONNX release the Flatpak builds against, and its tag's commit (checked against a
# clone of github.com/onnx/onnx: `git rev-parse v1.22.0^{commit}`).
ONNX_TAG = 'v1.22.0'
ONNX_COMMIT = '2bb50465112feca9003e1ed654d77f01ff1415ca'


def check_source(module, source, manifest_dir, project_root):
    where = f'module {module["name"]}: {source.get("type")} source'
    kind = source.get('type')
    if kind in ('archive', 'file'):
        expect(source.get('url', '').startswith('https://'), f'{where} has no https url')
        expect(HEX64.match(source.get('sha256', '')) is not None, f'{where} has no sha256')
    elif kind == 'git':
        expect(HEX40.match(source.get('commit', '')) is not None, f'{where} is not pinned to a commit')
    elif kind in ('dir', 'patch'):
        # Local: only this repository's own tree counts as pinned.
        path = os.path.realpath(os.path.join(manifest_dir, source.get('path', '')))
        expect(path == project_root or path.startswith(project_root + os.sep),
               f'{where} leaves the repository: {source.get("path")}')
        expect(os.path.exists(path), f'{where} does not exist: {source.get("path")}')
    else:
        problems.append(f'{where}: type not allowed')


def meson_option_names(path):
    with open(path, encoding='utf-8') as f:
        return set(re.findall(r"option\(\s*'([^']+)'", f.read()))


def main():
    manifest_path, desktop_path, metainfo_path, options_path = sys.argv[1:5]
    manifest_dir = os.path.dirname(os.path.abspath(manifest_path))
    project_root = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(options_path))))
    try:
        with open(manifest_path, encoding='utf-8') as f:
            manifest = json.load(f, object_pairs_hook=no_duplicate_keys)
    except ValueError as e:
        print(f'{manifest_path}: not valid JSON: {e}')
        return 1

    desktop = configparser.RawConfigParser(interpolation=None)
    desktop.optionxform = str
    desktop.read(desktop_path, encoding='utf-8')
    entry = desktop['Desktop Entry']
    metainfo = ET.parse(metainfo_path).getroot()
    app_id = metainfo.findtext('id')

    expect(manifest.get('id') == app_id, f'manifest id {manifest.get("id")} is not {app_id}')
    expect(os.path.basename(desktop_path) == f'{manifest.get("id")}.desktop',
           'desktop file is not named after the manifest id')
    expect(os.path.basename(manifest_path) == f'{manifest.get("id")}.json',
           'manifest is not named after its id')
    launchable = metainfo.findtext("launchable[@type='desktop-id']")
    expect(launchable == f'{manifest.get("id")}.desktop', 'metainfo launchable is another desktop file')
    expect(entry.get('Icon') == manifest.get('id'), 'desktop Icon is not the manifest id')
    command = manifest.get('command')
    expect(entry.get('Exec', '').split()[:1] == [command],
           f'manifest command {command} is not what the desktop file runs')
    expect(command in {b.text for b in metainfo.findall('provides/binary')},
           f'metainfo does not provide the binary {command}')

    expect(manifest.get('runtime') == 'org.gnome.Platform', 'runtime is not org.gnome.Platform')
    expect(manifest.get('sdk') == 'org.gnome.Sdk', 'sdk is not org.gnome.Sdk')
    expect(re.match(r'^\d+$', str(manifest.get('runtime-version', ''))) is not None,
           'runtime-version is not a GNOME release')
    # GNOME supports its two newest releases; in December 2026 those are 50 and 51.
    runtime = str(manifest.get('runtime-version', ''))
    expect(runtime.isdigit() and int(runtime) >= OLDEST_SUPPORTED_GNOME,
           f'runtime-version {manifest.get("runtime-version")} is older than GNOME {OLDEST_SUPPORTED_GNOME}')

    finish = set(manifest.get('finish-args', []))
    expect(finish <= ALLOWED_FINISH_ARGS, f'finish-args beyond need: {sorted(finish - ALLOWED_FINISH_ARGS)}')
    expect(REQUIRED_FINISH_ARGS <= finish, f'finish-args lack {sorted(REQUIRED_FINISH_ARGS - finish)}')

    modules = manifest.get('modules', [])
    names = [m.get('name') for m in modules]
    for needed in ('protobuf', 'protobuf-c', 'onnx', 'graphviz', 'libzip', 'onyx'):
        expect(needed in names, f'no module {needed}')
    for module in modules:
        expect(isinstance(module, dict), 'modules must be inline, not separate files')
        if not isinstance(module, dict):
            continue
        expect(module.get('sources'), f'module {module.get("name")} has no sources')
        for source in module.get('sources', []):
            check_source(module, source, manifest_dir, project_root)
    expect(names[-1:] == ['onyx'], 'the Onyx module is not built last')

    # The Onyx module is this repository, configured with options meson knows,
    # and compiles the onnx.proto that the onnx module installs.
    onyx = next((m for m in modules if m.get('name') == 'onyx'), {})
    expect(onyx.get('buildsystem') == 'meson', 'the Onyx module is not built with meson')
    expect(any(s.get('type') in ('dir', 'git') for s in onyx.get('sources', [])),
           'the Onyx module is not built from this repository')
    known = meson_option_names(options_path)
    proto = None
    for opt in onyx.get('config-opts', []):
        m = re.match(r'^-D([a-z_]+)=(.*)$', opt)
        if m:
            expect(m.group(1) in known, f'meson has no option {m.group(1)}')
            if m.group(1) == 'onnx_proto':
                proto = m.group(2)
    # ONNX's library itself (shape inference, checker, converter) is built, with its
    # ML operators and the namespace onyx-onnx.cc is compiled for, before Onyx.
    onnx = next((m for m in modules if m.get('name') == 'onnx'), {})
    installs = ' '.join(onnx.get('post-install', []))
    expect(proto is not None and installs.endswith(' ' + proto),
           f'onnx_proto={proto} is not the file the onnx module installs')
    expect(onnx.get('buildsystem', '').startswith('cmake'), 'the onnx module does not build the library')
    expect([(s.get('type'), s.get('tag'), s.get('commit')) for s in onnx.get('sources', [])] ==
           [('git', ONNX_TAG, ONNX_COMMIT)], f'the onnx module is not ONNX {ONNX_TAG} at {ONNX_COMMIT}')
    expect('-Donnx_prefix=/app' in onyx.get('config-opts', []),
           'the Onyx module is not built against the ONNX the onnx module installs (-Donnx_prefix=/app)')
    for flag in ('-DONNX_ML=1', '-DONNX_NAMESPACE=onnx', '-DCMAKE_POSITION_INDEPENDENT_CODE=ON'):
        expect(flag in onnx.get('config-opts', []), f'the onnx module is not configured with {flag}')
    expect(names.index('protobuf') < names.index('onnx') < names.index('onyx'),
           'onnx is not built after protobuf and before Onyx')

    for p in problems:
        print(p)
    print(f'{len(modules)} modules checked' if not problems else f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
