"""The README is true (issue 26, item 8): its sample report is what the program prints (stage
times aside), and every repository path it names exists.

``python -m tests.test_readme`` rewrites the sample from a fresh run."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from detect.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: Where the sample report sits: the first fenced block after this heading.
SAMPLE_HEADING = "## A sample report"
#: Repository paths, as the README writes them (in backquotes, or in the Layout block).
ROOTS = ("detect/", "frontends/", "tests/", "results/", "models/", ".ci/", "pyproject.toml")
SECONDS = re.compile(r"\d+\.\d{3}s")


def sample_block(text: str) -> tuple[int, int, list[str]]:
    """(start, end) offsets of the sample's fenced body in ``text``, and its lines."""
    heading = text.index(SAMPLE_HEADING)
    start = text.index("```\n", heading) + 4
    end = text.index("```\n", start)
    return start, end, text[start:end].splitlines()


def fresh_sample(command: str) -> list[str]:
    """What ``$ symdetect ...`` (``command``) prints now."""
    args = shlex.split(command.removeprefix("$ symdetect "))
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def timeless(lines: list[str]) -> list[str]:
    """The lines with stage times blanked (they differ from run to run), right-stripped."""
    return [SECONDS.sub("#.###s", line).rstrip() for line in lines]


def test_the_sample_report_is_what_the_program_prints():
    _, _, lines = sample_block(README.read_text())
    assert lines[0].startswith("$ symdetect analyze "), lines[0]
    assert timeless(lines[1:]) == timeless(fresh_sample(lines[0])), (
        "README's sample report is stale: run `python -m tests.test_readme` to rewrite it")


def named_paths(text: str) -> set[str]:
    """Repository paths the README names: in backquotes (``path::symbol`` and globs too) and
    in the Layout block (``dir/  a.py (...), b.py`` lines: each file under its directory)."""
    names = set()
    for m in re.finditer(r"`([^`\s]+)`", text):
        token = m.group(1).split("::")[0].rstrip(".,;:")
        if token.startswith(ROOTS):
            names.add(token)
    layout = text[text.index("## Layout"):]
    block = layout[layout.index("```\n") + 4:]
    block = block[:block.index("```")]
    folder = None
    for line in block.splitlines():
        head = re.match(r"(\S+)\s", line + " ")
        if head and not line.startswith(" "):
            word = head.group(1)
            names.add(word)
            folder = word if word.endswith("/") else word.rsplit("/", 1)[0] + "/"
            line = line[len(word):]
        for written in re.findall(r"(?<![\w/.])([\w/]+\.py|[a-z_]+/)(?![\w/])", line):
            if "/" in written.rstrip("/") and written.startswith(ROOTS):
                names.add(written)
            elif folder is not None:
                names.add(folder + written)
    return names


def test_every_path_the_readme_names_exists():
    names = named_paths(README.read_text())
    assert "detect/transform/domains.py" in names and "detect/checking/verify.py" in names
    missing = sorted(n for n in names if not any(ROOT.glob(n)))
    assert not missing, f"README names paths that do not exist: {missing}"


def test_the_path_check_finds_a_stale_name():
    text = README.read_text().replace("`detect/transform/domains.py`", "`detect/domains.py`", 1)
    assert "detect/domains.py" in named_paths(text)


def rewrite() -> None:
    text = README.read_text()
    start, end, lines = sample_block(text)
    body = "\n".join([lines[0], *(line.rstrip() for line in fresh_sample(lines[0]))]) + "\n"
    README.write_text(text[:start] + body + text[end:])


if __name__ == "__main__":
    rewrite()
