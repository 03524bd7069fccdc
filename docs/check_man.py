#!/usr/bin/python3
"""The man pages say what the programs take, no more and no less.

  check_man.py ONYX_CLI ONYX_CLI_1 [ONYX ONYX_1]

onyx-cli(1): the global options of `onyx-cli --help` are the .TP tags of OPTIONS; each
command `onyx-cli --help` lists has a subsection (.SS COMMAND) of COMMANDS, and the
options `onyx-cli COMMAND --help` lists are the .TP tags of that subsection, with the
same argument; the steps of `onyx-cli edit --help` are the .TP tags of EDIT STEPS; all
of them both ways. Options the SYNOPSIS names must exist for their command. onyx(1),
when the app was built: the options of `onyx --help-all` are the .TP tags of OPTIONS,
both ways. man formats both pages without a warning. What was compared is counted, and
comparing nothing is a failure: a check that did not run must not pass."""
import os
import re
import subprocess
import sys

failures = []


def fail(message):
    failures.append(message)


# ---- --help output ----

def help_text(*argv):
    run = subprocess.run(list(argv), capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("%s exited %d: %s" % (" ".join(argv), run.returncode, run.stderr.strip()))
    return run.stdout


def help_sections(text):
    """{heading: [lines]}: a heading is the first line at column 0 after a blank line
    (a heading may run on for lines, as edit's "Steps (NODE is ...):" does)."""
    sections, name, blank = {}, None, True
    for line in text.splitlines():
        if not line.strip():
            blank = True
            continue
        if not line[0].isspace():
            if blank:
                name = re.split(r"[(:]", line)[0].strip()
                sections[name] = []
        elif name is not None:
            sections[name].append(line)
        blank = False
    return sections


def parse_tag(text):
    """'-o, --output OUT' -> (('--output', '-o'), 'OUT'); GOption's '--graph=GRAPH' too, and
    an optional argument, '--simplify[=PASSES]' -> (('--simplify',), '[PASSES]')."""
    text = text.replace("\u2026", "...").strip()
    words = re.split(r",?\s+", text)  # "-h, --help" apart, "LOW,HIGH" whole
    names, rest = [], []
    for word in words:
        if word.startswith("-") and not rest:
            optional = re.match(r"^(--[\w-]+)\[=(.+)\]$", word)  # --simplify[=PASSES]
            if optional:
                word = optional.group(1)
                rest.append("[%s]" % optional.group(2))
            elif word.startswith("--") and "=" in word:
                word, argument = word.split("=", 1)
                rest.append(argument)
            names.append(word)
        else:
            rest.append(word)
    return tuple(sorted(names)), " ".join(rest)


def help_options(lines):
    """The options of a help section's lines: the left column, up to two spaces."""
    found = []
    for line in lines:
        match = re.match(r"^ {2,4}(-\S.*?)(?: {2,}|$)", line)
        if match:
            found.append(parse_tag(match.group(1)))
    return found


def named(sections, *prefixes):
    return [line for name, lines in sections.items() if name.startswith(prefixes) for line in lines]


# ---- roff ----

ALTERNATING = {"BI", "BR", "IB", "IR", "RB", "RI"}


def roff_words(arguments):
    return [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"|\S+', arguments)]


def plain(line):
    """A roff line as the words it shows."""
    match = re.match(r"^\.(\w+)\s*(.*)$", line)
    if match:
        macro, words = match.group(1), roff_words(match.group(2))
        if macro in ALTERNATING:
            line = "".join(words)
        elif macro == "OP":
            line = "[" + " ".join(words) + "]"
        elif macro in ("B", "I", "SY", "TP", "SS", "SH"):
            line = " ".join(words)
        else:
            line = ""
    line = re.sub(r"\\f(\[\w*\]|\w)", "", line)
    line = line.replace("\\-", "-").replace("\\~", " ").replace("\\&", "").replace("\\ ", " ")
    return line


def read_page(path):
    with open(path, encoding="utf-8") as f:
        return [l for l in f.read().splitlines() if not l.startswith(('.\\"', "'\\\""))]


def blocks(lines, macro):
    """{heading: [lines]} for each .SH or .SS heading, up to the next of its kind or a
    .SH."""
    found, name = {}, None
    for line in lines:
        if line.startswith(".SH ") or line.startswith("." + macro + " "):
            name = plain(line) if line.startswith("." + macro + " ") else None
            if name is not None:
                found[name] = []
        elif name is not None:
            found[name].append(line)
    return found


def tags(lines):
    """The option-like .TP tags of some lines, parsed."""
    found = []
    for i, line in enumerate(lines[:-1]):
        if line.strip() == ".TP":
            tag = plain(lines[i + 1])
            if tag.startswith("-"):
                found.append(parse_tag(tag))
    return found


def compare(what, documented, offered, listed_by="--help"):
    """Both ways; returns how many items matched."""
    by_names = {names: argument for names, argument in documented}
    offered_names = {names for names, _ in offered}
    for names, argument in offered:
        if names not in by_names:
            fail("%s: %s is not documented" % (what, ", ".join(names)))
        elif by_names[names] != argument:
            fail("%s: %s takes %r, the man page says %r" % (what, ", ".join(names), argument or "no argument",
                                                            by_names[names] or "no argument"))
    for names, _ in documented:
        if names not in offered_names:
            fail("%s: the man page documents %s, which %s does not list" % (what, ", ".join(names), listed_by))
    return sum(1 for names, argument in offered if by_names.get(names) == argument)


def formats(page, sections):
    """man lays the page out with no warning from groff, and shows these sections."""
    run = subprocess.run(["man", "--warnings", "-l", "-Tutf8", page], capture_output=True, text=True,
                         env=dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8"))
    shown = re.sub(".\b", "", run.stdout)  # bold and underline are overstruck on a pipe
    if run.returncode != 0 or run.stderr.strip():
        fail("man cannot format %s cleanly: %s" % (page, run.stderr.strip()))
    for section in sections:
        if not re.search(r"(?m)^%s$" % re.escape(section), shown):
            fail("%s: man does not show the section %s" % (page, section))


# ---- onyx-cli(1) ----

def check_cli(cli, page):
    lines = read_page(page)
    usage = help_sections(help_text(cli, "--help"))
    commands = [m.group(1) for m in map(lambda l: re.match(r"^  ([a-z][\w-]*) ", l), usage.get("Commands", [])) if m]
    if not commands:
        sys.exit("onyx-cli --help lists no command: nothing to compare onyx-cli.1 with")
    sections = blocks(lines, "SH")
    subsections = blocks(sections.get("COMMANDS", []), "SS")
    n_options = compare("onyx-cli", tags(sections.get("OPTIONS", [])), help_options(usage.get("Options", [])))
    n_steps = 0
    offered = {}
    for command in commands:
        text = help_sections(help_text(cli, command, "--help"))
        offered[command] = [o for o in help_options(named(text, "Options", "Application Options"))
                            if "--help" not in o[0]]
        if command not in subsections:
            fail("onyx-cli.1 has no subsection .SS %s" % command)
            continue
        n_options += compare("onyx-cli " + command, tags(subsections[command]), offered[command])
        if command == "edit":
            n_steps = compare("onyx-cli edit steps", tags(sections.get("EDIT STEPS", [])),
                              help_options(named(text, "Steps")))
    for name in subsections:
        if name not in commands:
            fail("onyx-cli.1 has a subsection for %s, which onyx-cli --help does not list" % name)
    # The SYNOPSIS: one .SY entry per form, each naming only options of its command.
    n_synopses = 0
    for entry in re.findall(r"(?ms)^(\.SY .*?)^\.YS", "\n".join(sections.get("SYNOPSIS", [])) + "\n"):
        words = " ".join(plain(l) for l in entry.splitlines()).split()
        command = words[1] if len(words) > 1 and words[1] in offered else None
        known = {n for names, _ in (offered[command] if command else help_options(usage.get("Options", [])))
                 for n in names} | {"--help", "-h"}
        for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", " ".join(words[1:])):
            if option not in known:
                fail("onyx-cli.1 SYNOPSIS: %s %s does not take %s" % ("onyx-cli", command or "", option))
        n_synopses += 1
    synopsised = set(re.findall(r'(?m)^\.SY "onyx\\-cli (\S+)"', "\n".join(sections.get("SYNOPSIS", []))))
    for command in commands:
        if command not in synopsised:
            fail("onyx-cli.1 SYNOPSIS does not show %s" % command)
    formats(page, ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EDIT STEPS", "EXIT STATUS",
                   "EXAMPLES", "SEE ALSO"])
    if not commands or n_options == 0 or n_steps == 0 or n_synopses == 0:
        fail("onyx-cli.1: nothing compared (%d commands, %d options, %d edit steps, %d synopses): "
             "could the help be read?" % (len(commands), n_options, n_steps, n_synopses))
    return "onyx-cli.1: %d commands, %d options and %d edit steps match --help both ways, %d synopses" % (
        len(commands), n_options, n_steps, n_synopses)


# ---- onyx(1) ----

def check_app(app, page):
    text = help_sections(help_text(app, "--help-all"))
    offered = help_options(named(text, "Help Options", "GApplication options", "Application Options"))
    n_options = compare("onyx", tags(blocks(read_page(page), "SH").get("OPTIONS", [])), offered, "--help-all")
    formats(page, ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "KEYS", "SEE ALSO"])
    if n_options == 0:
        fail("onyx.1: nothing compared: could onyx --help-all be read?")
    return "onyx.1: %d options match onyx --help-all both ways" % n_options


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    said = [check_cli(sys.argv[1], sys.argv[2])]
    if len(sys.argv) == 5:
        said.append(check_app(sys.argv[3], sys.argv[4]))
    else:
        said.append("onyx.1 not compared: the app is not built")
    for failure in failures:
        print("FAIL: " + failure)
    print("; ".join(said))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
