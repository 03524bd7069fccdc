#!/usr/bin/python3
"""onyx-cli(1) documents every command `onyx-cli --help` lists and every edit step
`onyx-cli edit --help` lists, and `man` can format it."""
import re
import subprocess
import sys

cli, page = sys.argv[1], sys.argv[2]
with open(page, encoding="utf-8") as f:
    text = f.read().replace("\\-", "-")
usage = subprocess.run([cli, "--help"], capture_output=True, text=True).stdout
commands = re.findall(r"(?m)^  ([a-z][\w-]*) ", usage.split("Commands:")[-1].split("Options:")[0])
steps = re.findall(r"(?m)^  --([\w-]+)", subprocess.run([cli, "edit", "--help"], capture_output=True, text=True).stdout)
missing = [c for c in commands if not re.search(r"(?m)^\.BI? %s\b" % re.escape(c), text)]
missing += ["--" + s for s in steps if s not in ("output", "force") and "--" + s not in text]
if not commands or not steps:
    sys.exit("could not read the commands from onyx-cli --help")
if missing:
    sys.exit("onyx-cli.1 does not document: " + ", ".join(missing))
formatted = subprocess.run(["man", "-l", "-Tutf8", page], capture_output=True, text=True)
plain = re.sub(".\b", "", formatted.stdout)  # bold and underline are overstruck on a pipe
if formatted.returncode != 0 or "EDIT STEPS" not in plain:
    sys.exit("man cannot format onyx-cli.1: " + formatted.stderr)
print("%d commands and %d edit steps documented" % (len(commands), len(steps)))
