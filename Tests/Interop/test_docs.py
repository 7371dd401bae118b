"""Every shell block of README.md and Docs/*.md runs as written, against a served card.

Each document's ```sh blocks run in order in one bash (`set -euo pipefail`, so a variable a block
sets is there for the next, as in a reader's terminal), in a scratch directory that links the
checkout's top-level files and folders (so `Tests/Flows/flow_rig.py` and `Fixtures/…` are found,
and what a block writes stays in the scratch directory), with `arculus-card` on the PATH as the
binary under test ($ARCULUS_CARD). The card is conftest's: a fresh image served on the test's
vpcd slot. The documents' card is the one `./serve.sh` puts on slot 0, so three things are
rewritten before a block runs: the reader name "Virtual PCD 00 00" becomes the test's reader,
`port-35963` (the control socket's record) becomes the test slot's port, and an
`arculus-card ctl` that names no card gets `--slot N`.

A block passes when it exits 0 and its output holds what its comments promise: a comment with an
arrow, `# → TEXT` (or `# what: → TEXT`), says TEXT is printed (each part of TEXT between '…', in
order). A block that cannot
run in a test (it serves until stopped, restarts the machine's pcscd, installs packages, needs a
card of one's own) is marked in the Markdown on the line right before it:
`<!-- not run: REASON -->`. An unmarked block is run; a shell block fenced as anything but
```sh, and a marker before no shell block, fail the test.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, VPCD_BASE_PORT, _binary

DOCUMENTS = [REPO / "README.md", *sorted((REPO / "Docs").glob("*.md"))]
NOT_RUN = re.compile(r"^<!-- not run: (.+) -->$")
SHELL_FENCES = ("```bash", "```shell", "```console", "```zsh")
PROMISE = re.compile(r"#[^→\n]*→\s*(.+?)\s*$")


class Block:
    def __init__(self, document: Path, line: int, text: str, not_run: str | None):
        self.document, self.line, self.text, self.not_run = document, line, text, not_run

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(REPO)}:{self.line}"

    def promises(self) -> list[list[str]]:
        """What its `# → TEXT` comments say is printed, each as its parts between '…'."""
        found = []
        for line in self.text.split("\n"):
            match = PROMISE.search(line)
            if match:
                found.append([part.strip() for part in match.group(1).split("…") if part.strip()])
        return found


def shell_blocks(document: Path) -> tuple[list[Block], list[str]]:
    """The document's ```sh blocks, and what is wrong with its fences and markers."""
    lines = document.read_text().split("\n")
    blocks, problems = [], []
    inside, start, body = False, 0, []
    for number, line in enumerate(lines, 1):
        where = f"{document.relative_to(REPO)}:{number}"
        if not inside and line.startswith("```"):
            inside, start, body = True, number, []
            previous = lines[number - 2] if number > 1 else ""
            marker = NOT_RUN.match(previous)
            if line.strip() in SHELL_FENCES:
                problems.append(f"{where}: a shell block fenced {line.strip()!r}: fence it ```sh, so that it is run or marked")
            if marker and line.strip() != "```sh":
                problems.append(f"{where}: a '<!-- not run -->' marker before a block that is not ```sh")
            current_marker = marker.group(1) if marker else None
            language = line[3:].strip()
        elif inside and line.startswith("```"):
            inside = False
            if language == "sh":
                blocks.append(Block(document, start, "\n".join(body), current_marker))
        elif inside:
            body.append(line)
        elif NOT_RUN.match(line) and not (number < len(lines) and lines[number].startswith("```")):
            problems.append(f"{where}: a '<!-- not run -->' marker that is not right before a block")
    return blocks, problems


def rewritten(text: str, reader: str, slot: int) -> str:
    """The block for the test's card (see the module's docstring)."""
    text = text.replace("Virtual PCD 00 00", reader).replace("port-35963", f"port-{VPCD_BASE_PORT + slot}")
    lines = []
    for line in text.split("\n"):
        if "arculus-card ctl " in line and not re.search(r"arculus-card ctl --(slot|control|vpcd)\b", line):
            line = line.replace("arculus-card ctl ", f"arculus-card ctl --slot {slot} ")
        lines.append(line)
    return "\n".join(lines)


def scratch_directory(tmp_path: Path) -> Path:
    """A directory to run in, linking the checkout's top level (not its build or card images)."""
    work = tmp_path / "work"
    work.mkdir()
    for entry in REPO.iterdir():
        if entry.name in (".build", ".git", ".swiftpm") or entry.name.startswith("card.img"):
            continue
        (work / entry.name).symlink_to(entry)
    bin_directory = tmp_path / "bin"
    bin_directory.mkdir()
    (bin_directory / "arculus-card").symlink_to(_binary())
    return work


def test_every_shell_block_is_run_or_marked():
    """The fences and markers themselves (no card needed): shell blocks are ```sh, every marker
    stands right before one and gives a reason."""
    problems = []
    for document in DOCUMENTS:
        problems += shell_blocks(document)[1]
    assert not problems, "\n".join(problems)
    assert any(block.not_run is None for document in DOCUMENTS for block in shell_blocks(document)[0]), \
        "no runnable shell block at all"


@pytest.mark.time_limit(240)
@pytest.mark.parametrize("document", [d for d in DOCUMENTS if any(b.not_run is None for b in shell_blocks(d)[0])],
                         ids=lambda d: str(d.relative_to(REPO)))
def test_shell_blocks_run_as_written(card, tmp_path, document):
    blocks = [block for block in shell_blocks(document)[0] if block.not_run is None]
    served = card
    served.device().close()        # the card answers through PC/SC before the first block
    work = scratch_directory(tmp_path)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    script = ["set -euo pipefail"]
    for index, block in enumerate(blocks):
        script += [f"echo {index} > {outputs}/current", f"exec >{outputs}/{index} 2>&1",
                   rewritten(block.text, served.reader, served.slot)]
    script.append(f"echo done > {outputs}/current")
    environment = dict(os.environ, PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    process = subprocess.Popen(["bash", "-c", "\n".join(script)], cwd=work, env=environment,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        status = process.wait(timeout=200)
    finally:
        # What the blocks left running in the background (a server started with '&').
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    current = (outputs / "current").read_text().strip()
    if status != 0:
        block = blocks[int(current)]
        output = (outputs / current).read_text(errors="replace")
        pytest.fail(f"the shell block at {block.where} exited {status}:\n{block.text}\n--- its output ---\n{output}",
                    pytrace=False)
    assert current == "done"
    for index, block in enumerate(blocks):
        output = (outputs / str(index)).read_text(errors="replace")
        for parts in block.promises():
            parts = [rewritten(part, served.reader, served.slot) for part in parts]
            position = 0
            for part in parts:
                found = output.find(part, position)
                assert found >= 0, f"the shell block at {block.where} promises {' … '.join(parts)!r}; it printed:\n{output}"
                position = found + len(part)
