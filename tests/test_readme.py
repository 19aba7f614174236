"""Every command of README.md works from a fresh clone, offline.

Each ```bash block of README.md runs, in README order, in one fresh copy of the repository: the files
`git ls-files --cached --others --exclude-standard` lists in the working tree (so uncommitted edits are
tested too), committed into a new git repository so that a command which changes a tracked file is
caught. A block runs as one bash script (a variable set by one command is seen by the next, as in a
terminal), command by command; a command fails if any simple command in it fails (bash's ERR trap), and
after each one `git status` must show no tracked file changed. The copy's own package is the one that
runs (PYTHONPATH), and its task files, notebooks and example runs are the copy's.

Not run, each for the reason in SKIP: installing (the test environment is installed already), the whole
test suite (this test is part of it), commands that need a provider's API key, and servers that run
until they are stopped (`scicraft-viz lab` is started and stopped by tests/test_lab.py; the annotator's
Voila command is checked below by running its notebook with the README's environment and address).

Files a reader is expected to make before a command (their own build) are made in the copy from the
reference solutions before the commands run: see FIXTURES.

Numba's compiled kernels (git-ignored `__pycache__/*.nbi, *.nbc`) are copied along with the sources
(whose modification times are kept, which the cache checks), so that the copy does not spend a minute
compiling the engine; a clone without them compiles it once (tests/test_jitcache.py covers that)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK_TIMEOUT_S = 1500

# (regular expression searched in the command, why the command is not run here)
SKIP: list[tuple[str, str]] = [
    (r'^pip install -e "\.\[test\]" && python -m pytest',
     "runs the whole test suite, of which this test is a part"),
    (r"^pip install -e \. && scicraft-viz lab",
     "installs (done already) and starts JupyterLab, a server that runs until it is stopped; tests/test_lab.py "
     "starts `scicraft-viz lab`, opens the address it prints and stops it"),
    (r"^pip install ", "installs packages: this environment is installed already (pip install -e '.[test]')"),
    (r"^export [A-Z_]*API_KEY=", "sets a provider's API key"),
    (r"--model (openai|anthropic|google|mistral|grok|together|groq|azureai|bedrock|vertex)/",
     "calls a provider's model, which needs an API key and the network"),
    (r"--model \$MODEL\b.*-T level=all.*--epochs 8",
     "the paper's full grid for one model (25 tasks x 8 epochs per command); the small grid of the same "
     "commands below it (`for cond in ...`) runs here"),
    (r"^SCICRAFT_RUNS=\S+ JUPYTER_PATH=\S+ voila ",
     "starts the Voila server, which runs until it is stopped; test_the_annotator_command_starts_a_session runs "
     "its notebook with the README's environment and page address, and tests/browser drives the real page"),
]

# files a reader makes before a command, made in the copy from reference builds:
# the name used in README -> the files (relative to the repository) to copy there; a name ending in "/"
# is a folder that receives the files
FIXTURES: dict[str, list[str]] = {
    "my_build.mcfunction": ["tasks/solutions/A_simultaneous_lights_L1.mcfunction"],
    "runs/builds/": ["tasks/solutions/C_sequential_activation_L1.mcfunction"],
}


@dataclass
class Command:
    line: int  # line of README.md where the command starts
    text: str  # as written, continuation lines included

    @property
    def skip(self) -> str | None:
        flat = " ".join(self.text.replace("\\\n", " ").split())
        return next((why for pattern, why in SKIP if re.search(pattern, flat)), None)


_OPEN, _CLOSE = {"if", "do", "case"}, {"fi", "done", "esac"}


def _words(line: str) -> list[str]:
    code = re.sub(r"(^|\s)#.*$", "", line)  # a comment: '#' at the start of a word
    return re.split(r"[\s;]+", code.strip())


def bash_blocks(text: str) -> list[list[Command]]:
    """The ```bash blocks of a Markdown text, each split into its top-level commands: a line ending in a
    backslash continues, and so does everything up to the `done`, `fi` or `esac` that closes a loop or a
    condition. Blank lines and lines that are only a comment are left out."""
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```bash":
            i += 1
            continue
        i += 1
        block, current, start, depth = [], [], 0, 0
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i]
            if not current and (not line.strip() or line.lstrip().startswith("#")):
                i += 1
                continue
            if not current:
                start = i + 1
            current.append(line)
            words = _words(line)
            depth += sum(w in _OPEN for w in words) - sum(w in _CLOSE for w in words)
            if not line.endswith("\\") and depth <= 0:
                block.append(Command(start, "\n".join(current)))
                current, depth = [], 0
            i += 1
        if current:
            block.append(Command(start, "\n".join(current)))
        blocks.append(block)
        i += 1
    return blocks


def fresh_copy(dest: Path) -> Path:
    """The working tree's files (tracked and untracked, not ignored) in a new git repository at `dest`,
    committed, with numba's cached kernels alongside."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():  # a tracked file deleted in the working tree is left out, as in the tree
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    for cached in (ROOT / "scicraft_viz").rglob("__pycache__/*.nb[ic]"):
        target = dest / cached.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(cached, target)
    git = ["git", "-c", "user.name=readme-test", "-c", "user.email=readme-test@localhost", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fresh clone"], cwd=dest, check=True)
    return dest


def environment(copy: Path) -> dict[str, str]:
    """The reader's environment, with the copy's package first and no setting that points elsewhere."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "SCICRAFT_NOJIT", "SCICRAFT_TASKS_DIR", "SCICRAFT_RUNS", "PYTHONPATH")}
    env["PYTHONPATH"] = str(copy)
    return env


def make_fixtures(copy: Path, commands: list[Command]) -> None:
    for name, sources in FIXTURES.items():
        assert any(name in c.text for c in commands), f"README.md no longer uses the fixture {name}: drop it"
        for src in sources:
            target = copy / name / Path(src).name if name.endswith("/") else copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(copy / src, target)


def block_script(commands: list[Command], out: Path) -> str:
    """One bash script for a block: each command runs in the same shell, its output to out/<n>.log, a
    failing simple command anywhere in it noted in out/errors, and `git status` of tracked files after
    it in out/<n>.git."""
    parts = ["set -E -o pipefail", f"trap 'echo \"$__scv_n $?\" >> {shlex.quote(str(out / 'errors'))}' ERR"]
    for n, c in enumerate(commands):
        if c.skip:
            continue
        parts += [f"__scv_n={n}", "{", c.text, f"}} > {shlex.quote(str(out / f'{n}.log'))} 2>&1",
                  f"git status --porcelain --untracked-files=no > {shlex.quote(str(out / f'{n}.git'))}"]
    return "\n".join(parts) + "\n"


def test_the_readme_parser_splits_commands_as_bash_would():
    text = textwrap.dedent("""\
        ```bash
        # a comment
        a=1   # set
        echo $a \\
            two
        for x in 1 2; do
          echo $x
        done
        if true; then echo y; fi
        ```
        ```python
        print()
        ```
        ```bash
        pip install -e .
        ```
        """)
    blocks = bash_blocks(text)
    assert [[c.text for c in b] for b in blocks] == [
        ["a=1   # set", "echo $a \\\n    two", "for x in 1 2; do\n  echo $x\ndone", "if true; then echo y; fi"],
        ["pip install -e ."]]
    assert [c.line for c in blocks[0]] == [3, 4, 6, 9]
    assert blocks[1][0].skip and not blocks[0][0].skip


def test_every_readme_command_runs_in_a_fresh_clone(tmp_path):
    blocks = bash_blocks(README.read_text(encoding="utf-8"))
    commands = [c for b in blocks for c in b]
    assert commands, "README.md has no ```bash block"
    copy = fresh_copy(tmp_path / "clone")
    make_fixtures(copy, commands)
    env = environment(copy)
    failures, ran = [], []
    for k, block in enumerate(blocks):
        out = tmp_path / f"block{k}"
        out.mkdir()
        script = block_script(block, out)
        r = subprocess.run(["bash", "-c", script], cwd=copy, env=env, capture_output=True, text=True,
                           timeout=BLOCK_TIMEOUT_S, stdin=subprocess.DEVNULL)
        errors = {int(line.split()[0]) for line in (out / "errors").read_text().splitlines()} if (
            out / "errors").exists() else set()
        for n, c in enumerate(block):
            if c.skip:
                continue
            ran.append(c)
            log = out / f"{n}.log"
            what = []
            if n in errors:
                what.append("a command in it failed")
            if not log.exists():
                what.append("it did not run (the block stopped before it)")
            changed = (out / f"{n}.git").read_text().strip() if (out / f"{n}.git").exists() else ""
            if changed:
                what.append(f"tracked files changed:\n{changed}")
            if what:
                tail = log.read_text(errors="replace")[-1500:] if log.exists() else r.stderr[-1500:]
                failures.append(f"README.md line {c.line}: {c.text}\n  -> {'; '.join(what)}\n"
                                + textwrap.indent(tail, "     | "))
    assert ran, "every README command was skipped"
    assert not failures, f"{len(failures)} of {len(ran)} README commands failed:\n\n" + "\n\n".join(failures)


def test_the_annotator_command_starts_a_session_in_a_fresh_clone(tmp_path):
    """The annotator command of README.md, short of serving it: its notebook runs with the README's
    SCICRAFT_RUNS (expanded by bash in the clone, where runs/ does not exist yet) and the query string
    of the address README gives; the participant consents and presses Start, and the session file
    appears in runs/human/."""
    text = README.read_text(encoding="utf-8")
    command = next(c for b in bash_blocks(text) for c in b if " voila notebooks/annotator.ipynb" in c.text)
    flat = " ".join(command.text.replace("\\\n", " ").split())
    m = re.match(r"SCICRAFT_RUNS=(\S+) JUPYTER_PATH=\S+ voila (\S+\.ipynb)", flat)
    assert m, command.text
    address = re.search(r"^# then open (http://\S+)$", text, re.M)
    assert address, "README.md gives no address to open after the voila command"
    query = urlsplit(address.group(1)).query
    copy = fresh_copy(tmp_path / "clone")
    assert not (copy / "runs").exists()
    env = environment(copy)
    runs = subprocess.run(["bash", "-c", f"printf %s {m.group(1)}"], cwd=copy, env=env, capture_output=True,
                          text=True, check=True).stdout
    notebook = copy / m.group(2)
    env.update(SCICRAFT_RUNS=runs, QUERY_STRING=query)
    # Voila runs a notebook's kernel in the notebook's folder; the page is the cell's last expression
    script = textwrap.dedent(f"""\
        import json, sys
        cells = json.load(open({str(notebook)!r}, encoding="utf-8"))["cells"]
        scope = {{}}
        for cell in cells:
            if cell["cell_type"] == "code":
                exec("".join(cell["source"]), scope)
        page = scope["page"]
        page.consent.value = True
        page.start_button.click()
        print(page.last_message)
        print(page.path.resolve())
        page.close()
        """)
    r = subprocess.run([sys.executable, "-c", script], cwd=notebook.parent, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    message, path = r.stdout.strip().splitlines()[-2:]
    assert message.startswith("Started."), message
    params = dict(p.split("=", 1) for p in query.split("&"))
    session = Path(path)
    assert session.parent == copy / "runs" / "human" and session.is_file(), path
    assert session.name.startswith(f"{params['task']}__{params['participant']}__")
