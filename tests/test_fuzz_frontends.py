"""Grammar-driven and mutation fuzzing of the whole pipeline, for all four front ends (issue 16).

Programs come from two sources:

* each front end's own lark grammar (``hypothesis.extra.lark.from_lark``), either whole files
  or one rule (a Promela statement sequence, a CSP# process, a DVE transition, Murphi
  statements) put into a small template that declares the names the generator uses, so that
  generated programs get past name resolution and reach lowering, detection and exploration;
* real models (``models/**`` and ``../shared/corpus/**``) mutated token by token: a token
  deleted, duplicated or swapped, a number made extreme (0, -1, 2**31, 10**40), an identifier
  renamed.

Each program runs in-process through the command line (``analyze``; then ``explore
--max-states 200 --timeout 5`` and ``analyze --verify --max-states 200``), and must give an
exit code in {0, 1, 2, 3}; on 2 exactly one line ``symdetect: FILE:LINE:COL: ...`` (or
``symdetect: FILE: ...``) and nothing else; never a traceback; no file left in the working
directory.  The default run is bounded (``BUDGET``); ``-m slow`` runs the long profile.
Every failure found is kept in ``REGRESSIONS``.
"""
from __future__ import annotations

import os
import re
import signal
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from detect.cli import main
from tests.test_domains import sort_program

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
SUFFIX = {"promela": ".pml", "csp": ".csp", "dve": ".dve", "murphi": ".m"}
LANGUAGES = sorted(SUFFIX)


class Hang(BaseException):
    """A program ran longer than the per-program limit (not caught by the CLI or CliRunner)."""


class FuzzFailure(AssertionError):
    """A broken promise of the command line on one program; ``kind`` names which (``FAILURE_KINDS``)."""

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind


#: What a failure can be: the promises ``run_pipeline`` checks.
FAILURE_KINDS = ("traceback", "exit code", "unlocated message", "file left behind", "hang")


# ---------------------------------------------------------------------------- running


def _check(result, path: str, what: str) -> None:
    where = f"{what}\n--- output:\n{result.output}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        tb = "".join(traceback.format_exception(result.exception))
        raise FuzzFailure("traceback", f"{where}\n{tb}")
    if "Traceback" in result.output:
        raise FuzzFailure("traceback", where)
    if result.exit_code not in (0, 1, 2, 3):
        raise FuzzFailure("exit code", f"{result.exit_code} from {where}")
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        located = re.compile(rf"^symdetect: {re.escape(path)}(:\d+:\d+)?: \S.*$")
        if not (len(lines) == 1 and located.match(lines[0])) or result.stdout.strip():
            raise FuzzFailure("unlocated message", where)


#: The commands run on a program that ``analyze`` accepts (exit code other than 2).
FOLLOW_UPS = (("explore", "--max-states", "200", "--timeout", "5"),
              ("analyze", "--verify", "--max-states", "200"))


#: Wall-clock seconds allowed per CPU second: a program that waits instead of computing
#: hangs too, but a loaded machine does not make a program hang.
WALL_PER_CPU = 10


def pipeline_exit_codes(text: str, language: str, seconds: float = 60.0) -> tuple[int, ...]:
    """Run ``text`` through analyze, then (unless it is bad input) explore and analyze
    --verify; the exit codes, analyze's first.  Raises ``FuzzFailure``, or ``Hang`` after
    ``seconds`` of CPU time (``ITIMER_PROF``, the commands' ``--timeout`` keeps
    ``ITIMER_REAL``) or ``WALL_PER_CPU`` times as many seconds of wall-clock time."""
    with tempfile.TemporaryDirectory() as models, tempfile.TemporaryDirectory() as cwd:
        path = os.path.join(models, "fuzz" + SUFFIX[language])
        Path(path).write_text(text)
        old = os.getcwd()

        def hang(signum, frame):
            clock = "CPU" if signum == signal.SIGPROF else "wall-clock"
            raise Hang(f"more than {seconds * (1 if signum == signal.SIGPROF else WALL_PER_CPU):g} s of "
                       f"{clock} time on:\n{text}")

        previous = signal.signal(signal.SIGPROF, hang), signal.signal(signal.SIGALRM, hang)
        # repeating, in case the first one lands where an exception is dropped (a gc callback)
        signal.setitimer(signal.ITIMER_PROF, seconds, 1.0)
        signal.setitimer(signal.ITIMER_REAL, seconds * WALL_PER_CPU, 1.0)
        try:
            os.chdir(cwd)
            runner = CliRunner()
            first = runner.invoke(main, ["analyze", path], catch_exceptions=True)
            _check(first, path, f"analyze on:\n{text}")
            codes = [first.exit_code]
            if first.exit_code != 2:
                for command, *options in FOLLOW_UPS:
                    result = runner.invoke(main, [command, path, *options], catch_exceptions=True)
                    _check(result, path, f"{command} {' '.join(options)} on:\n{text}")
                    codes.append(result.exit_code)
            if os.listdir(cwd):
                raise FuzzFailure("file left behind", f"{os.listdir(cwd)} after:\n{text}")
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGPROF, previous[0])
            signal.signal(signal.SIGALRM, previous[1])
            os.chdir(old)
        return tuple(codes)


def run_pipeline(text: str, language: str, seconds: float = 60.0) -> int:
    """``pipeline_exit_codes``, for the tests: analyze's exit code."""
    return pipeline_exit_codes(text, language, seconds)[0]


# ---------------------------------------------------------------------------- grammar programs

# Names the templates declare, so that generated statements refer to something.
NAMES = {
    "promela": ["x", "y", "a", "b", "c", "d", "i", "N", "P", "m1", "L"],
    "csp": ["x", "y", "a", "c", "i", "P", "Sys", "N", "e", "f"],
    "dve": ["x", "y", "a", "k", "s", "t", "c", "q", "P", "Q", "u", "N"],
    "murphi": ["x", "y", "b", "i", "N", "pid", "val", "true", "false", "r"],
}
NUMBERS = ["0", "1", "2", "3", "255", "0", "1"]

TEMPLATES = {
    "promela": [
        ("sequence", "#define N 2\nmtype = {m1, m2};\nbyte x, y; byte a[3]; bool b;\n"
                     "chan c = [2] of {byte}; chan d = [0] of {byte, byte};\n"
                     "active [2] proctype P() { byte i;\nHOLE\n}\n"),
    ],
    "csp": [
        ("block", "#define N 2;\nvar x = 0; var y : {0..3} = 1; var a[3]; channel c 1;\n"
                  "P(i) = [x < 2] e.i HOLE -> P(i);\nSys() = ||| i:{0..1} @ P(i);\n"),
    ],
    # (``proc`` and ``expr`` holes are left out: from_lark draws them too slowly, ~5 s each)
    "dve": [
        ("transition", "const byte N = 2; byte x = 0; byte a[3]; channel c; channel {byte} q[2];\n"
                       "process P { byte k; state s, t; init s; trans HOLE; }\n"
                       "process Q { state u; init u; trans u -> u { sync c?x; }; }\nsystem async;\n"),
    ],
    "murphi": [
        ("stmts", "Const N: 2;\nType pid: Scalarset(N); val: 0..3;\n"
                  "Var x: Array[pid] Of val; y: val; b: boolean;\n"
                  "Ruleset i: pid Do Rule \"r\" true ==> Begin\nHOLE\nEnd; End;\n"
                  "Startstate Begin For i: pid Do x[i] := 0; End; y := 0; b := false; End;\n"),
    ],
}
HOLES = {"sequence": "skip", "expr": "y < 2", "proc": "e -> Skip", "block": "{x = 1;}",
         "transition": "s -> t {}", "stmts": "y := 1"}
RULES = [(language, k) for language in sorted(TEMPLATES) for k in range(len(TEMPLATES[language]))]


@lru_cache(maxsize=None)
def _grammar(language: str) -> Lark:
    text = (ROOT / "frontends" / language / "grammar.lark").read_text()
    return Lark(text, parser="lalr")


def _terminal_strategy(language: str, term, ignored: bool):
    name, pattern = term.name, term.pattern
    if ignored:
        if "COMMENT" in name:
            return st.sampled_from([" ", "\n", " /* c */ " if language != "murphi" else " -- c\n"])
        return st.sampled_from([" ", "\n"])
    if pattern.type == "str":
        return st.just(pattern.value + " ")
    special = {
        "NAME": st.sampled_from(NAMES[language]),
        "NUMBER": st.sampled_from(NUMBERS),
        "STRING": st.sampled_from(['"s"', '"r"', '"%d\\n"']),
        "CHAR": st.sampled_from(["'a'", "'0'"]),
        "DEF_END": st.just(";\n"),
        "OTHER_ASSERT": st.sampled_from(["refines P()", "deterministic"]),
        "LTL": st.just("ltl p { [] (x < 3) }"),
        "MACRO_HEAD": st.just("#define f(v)"),
    }
    if name in special:
        return special[name].map(lambda s: s + " ")
    # Printable ASCII, and the other characters the token itself spells (Murphi's "¬", "≤", ...).
    extra = "".join(sorted({c for c in pattern.to_regexp() if ord(c) > 126}))
    ascii_ = st.characters(min_codepoint=32, max_codepoint=126, include_characters=extra or None)
    return st.from_regex(pattern.to_regexp(), fullmatch=True, alphabet=ascii_).map(lambda s: s + " ")


@lru_cache(maxsize=None)
def programs(language: str, rule: str | None = None):
    """Programs from the front end's grammar: whole files, or one ``rule`` in its template."""
    grammar = _grammar(language)
    ignored = set(grammar.ignore_tokens)
    starts = [rule] if rule else grammar.options.start
    terminals, _, _ = grammar.grammar.compile(starts, ())
    explicit = {t.name: _terminal_strategy(language, t, t.name in ignored) for t in terminals}
    strategy = from_lark(grammar, start=rule, explicit=explicit)
    return strategy


def in_template(language: str, k: int):
    rule, template = TEMPLATES[language][k]
    return programs(language, rule).map(lambda hole: template.replace("HOLE", hole))


@pytest.mark.parametrize("language, k", RULES)
def test_templates_are_valid_models(language, k):
    """Every template, with a trivial hole, analyses cleanly (else the fuzzer only tests errors)."""
    rule, template = TEMPLATES[language][k]
    assert run_pipeline(template.replace("HOLE", HOLES[rule]), language) == 0


# ---------------------------------------------------------------------------- mutated real files

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|->|==|!=|<=|>=|<<|>>|&&|\|\||::|:=|\.\.|\S")
# Numbers and names keep the syntax valid and so reach lowering and detection: drawn more often.
KINDS = ["delete", "duplicate", "swap", "number", "number", "rename", "rename"]
EXTREMES = ["0", "-1", str(2**31), str(10**40), "255", "65536"]


def _seeds(limit: int) -> dict[str, list[str]]:
    seeds: dict[str, list] = {language: [] for language in LANGUAGES}
    roots = [ROOT / "models"] + ([CORPUS] if CORPUS.is_dir() else [])
    for root in roots:
        for path in sorted(root.rglob("*")):
            for language, suffix in SUFFIX.items():
                if path.suffix == suffix:
                    seeds[language].append((path.stat().st_size, path.read_text()))
    # the files up to ``limit`` characters, or the smallest one
    return {k: [t for n, t in sorted(v) if n <= limit] or [t for _, t in sorted(v)[:1]]
            for k, v in seeds.items()}


@lru_cache(maxsize=None)
def seeds(limit: int) -> dict[str, tuple[str, ...]]:
    return {k: tuple(v) for k, v in _seeds(limit).items()}


def mutate(text: str, draw) -> str:
    """1-3 token edits of ``text``, keeping the rest (and so the line structure) as it is;
    ``draw`` draws from a strategy (a composite strategy's ``draw``)."""
    spans = [m.span() for m in TOKEN.finditer(text)]
    if not spans:
        return text
    words = sorted({text[a:b] for a, b in spans if text[a].isalpha() or text[a] == "_"}) or ["x"]
    edits = []
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, len(spans) - 1))
        a, b = spans[k]
        token = text[a:b]
        kind = draw(st.sampled_from(KINDS))
        if kind == "delete":
            edits.append((a, b, ""))
        elif kind == "duplicate":
            edits.append((a, b, token + " " + token))
        elif kind == "swap":
            j = draw(st.integers(0, len(spans) - 1))
            c, d = spans[j]
            if (c, d) != (a, b) and (d <= a or c >= b):
                edits.append((a, b, text[c:d]))
                edits.append((c, d, token))
        elif kind == "number":
            numbers = [s for s in spans if text[s[0]].isdigit()] or [spans[k]]
            a, b = numbers[draw(st.integers(0, len(numbers) - 1))]
            edits.append((a, b, draw(st.sampled_from(EXTREMES))))
        else:
            names = [s for s in spans if text[s[0]].isalpha() or text[s[0]] == "_"] or [spans[k]]
            a, b = names[draw(st.integers(0, len(names) - 1))]
            edits.append((a, b, draw(st.sampled_from(words + ["zz", "i"]))))
    # apply from the end, dropping overlapping edits
    out, end = text, len(text) + 1
    for a, b, new in sorted(set(edits), reverse=True):
        if b <= end:
            out = out[:a] + new + out[b:]
            end = a
    return out


@st.composite
def mutated(draw, pool: tuple[str, ...]) -> str:
    """A file of ``pool`` with ``mutate``'s edits."""
    return mutate(draw(st.sampled_from(pool)), draw)


# ---------------------------------------------------------------------------- the fuzz tests

# Examples per language and test: default run (about 30 s in all) and the slow profile.
BUDGET = {"grammar": 5, "template": 6, "mutated": 6}
SLOW_BUDGET = {"grammar": 150, "template": 400, "mutated": 300}
SEED_SIZE = {"default": 1000, "slow": 4000}

_fuzz = dict(deadline=None, database=None,
             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                    HealthCheck.filter_too_much, HealthCheck.large_base_example])


#: Where programs come from (``source_programs``).
SOURCES = ("grammar", "template", "mutated")


def source_programs(source: str, language: str, seed_size: int, k: int | None = None):
    """The strategy of ``source``'s programs in ``language``: whole files from the grammar,
    grammar rules in template ``k`` (every template when None), or files up to
    ``seed_size`` characters mutated.  None when there is nothing to draw from."""
    if source == "grammar":
        return programs(language)
    if source == "template":
        ks = [k] if k is not None else range(len(TEMPLATES[language]))
        return st.one_of(*(in_template(language, j) for j in ks))
    pool = seeds(seed_size)[language]
    return mutated(pool) if pool else None


def fuzz(strategy, examples: int, on_program) -> None:
    """Call ``on_program`` on ``examples`` programs drawn from ``strategy`` (derandomized:
    the same programs on every run)."""
    @settings(max_examples=examples, derandomize=True, **_fuzz)
    @given(strategy)
    def check(text):
        on_program(text)

    check()


def _fuzz_test(source, language, examples, seed_size=SEED_SIZE["default"], k=None):
    strategy = source_programs(source, language, seed_size, k)
    if strategy is None:
        pytest.skip(f"no {language} seed files")
    fuzz(strategy, examples, lambda text: run_pipeline(text, language))


@pytest.mark.parametrize("language", LANGUAGES)
def test_grammar_programs(language):
    _fuzz_test("grammar", language, BUDGET["grammar"])


@pytest.mark.parametrize("language, k", RULES)
def test_grammar_rules_in_a_template(language, k):
    _fuzz_test("template", language, BUDGET["template"], k=k)


@pytest.mark.parametrize("language", LANGUAGES)
def test_mutated_real_models(language):
    _fuzz_test("mutated", language, BUDGET["mutated"], SEED_SIZE["default"])


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_grammar_programs_long(language):
    _fuzz_test("grammar", language, SLOW_BUDGET["grammar"])


@pytest.mark.slow
@pytest.mark.parametrize("language, k", RULES)
def test_grammar_rules_in_a_template_long(language, k):
    _fuzz_test("template", language, SLOW_BUDGET["template"], k=k)


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_mutated_real_models_long(language):
    _fuzz_test("mutated", language, SLOW_BUDGET["mutated"], SEED_SIZE["slow"])


# ---------------------------------------------------------------------------- regressions

@dataclass(frozen=True)
class Regression:
    """A failure the fuzzers found (``found``: by which source), fixed, and kept: ``program``
    now gets a located error or a result.  One ``failure`` may have several programs."""
    language: str
    found: str
    failure: str
    now: str
    program: str


_GERMAN = (ROOT / "models" / "murphi" / "german_small.m").read_text()
_BOARD = (ROOT / "models" / "board_rows.pml").read_text()
_MUTEX = (ROOT / "models" / "mutex_never.pml").read_text()

#: Every failure the fuzzers found, minimised.
REGRESSIONS = [
    Regression("promela", "issue 16's table", "traceback: constant folding raised Fault (shift by 300) at load time",
               "a run-time fault of the model, as in Spin",
               "byte x; active proctype P() { x = 1 << 300 }\n"),
    Regression("promela", "issue 16's table", "traceback: lark VisitError on Spin's conditional expression",
               "parsed and lowered",
               "byte x; active proctype P() { x = (x > 0 -> 1 : 2) }\n"),
    Regression("csp", "slow profile, mutated", "out of memory: a parameter mutated to 2^31 instantiated 2^31 "
               "processes", "a located refusal naming the bound",
               "#define N 2147483648;\nPhil(i) = eat.i -> Phil(i);\nFork(i) = eat.i -> Fork(i);\n"
               "College() = ||x:{0..N-1}@(Phil(x) || Fork(x));\n"),
    Regression("csp", "slow profile, mutated", "out of memory: a parameter mutated to 2^31 instantiated 2^31 "
               "processes", "a located refusal naming the bound",
               "#define N 2147483648;\nPhil(i) = eat.i -> Phil(i);\nCollege() = |||x:{0..N-1}@Phil(x);\n"),
    Regression("murphi", "slow profile, mutated", "hang: german_small.m with N = 65536 unrolled 4·10^9 copies of "
               "its nested quantifiers", "a located refusal naming the budget (50,000 copies)",
               _GERMAN.replace("N: 3;", "N: 65536;")),
    Regression("murphi", "slow profile, mutated", "traceback: german_small.m with N = 255 nested too deeply to "
               "compile", "a located refusal naming the budget",
               _GERMAN.replace("N: 3;", "N: 255;")),
    Regression("promela", "slow profile, mutated", "out of memory: board_rows.pml with 65,536 rows (196,608 state "
               "slots) in the value analysis", "a located refusal at the declaration naming the bound (16,384 slots)",
               _BOARD.replace("row board[2];", "row board[65536];")),
    Regression("promela", "slow profile, template", "traceback: AttributeError in the CFG builder on a label before "
               "an xr/xs claim (which lowers to no statement)", "a located refusal, as in Spin",
               "#define N 2\nmtype = {m1, m2};\nbyte x, y; byte a[3]; bool b;\n"
               "chan c = [2] of {byte}; chan d = [0] of {byte, byte};\n"
               "active [2] proctype P() { byte i;\n; x : xr x \n}\n"),
    Regression("dve", "slow profile, mutated", "unlocated message: a constraint table over the limit was "
               "'FILE:LINE: constraint ...' (no column)", "one line starting with the file, or file:line:column",
               '\n// discrete time simulation of fischer real time mutual exclusion protocol\n// parameters:\n// N = number of processes\n// MAX = matimal time\n// K1, K2 = protocol constants\n\n\n\n\n\n\n\nbyte id;\nbyte t[3] = { 0 ,255 ,255  };\n\n\n\nprocess Timer {\nstate q;\ninit q;\ntrans\n q -> q { guard t[0] != 0  && t[1] != 0  && t[2] != 0 ;\neffect t[0] = (t[0]-1) | ((t[0]==255)*255) ,t[1] = (t[1]-1) | ((t[1]==255)*255) ,t[2] = (t[2]-1) | ((t[2]==255)*0) ; };\n}\n\nprocess P_0 {\nstate NCS, try, wait, CS;\ninit NCS;\ntrans\n NCS -> try { guard id == 0; effect t[0] = 2;},\n\n try -> wait { effect t[0] = 3, id =0 +1; },\n\n wait -> wait { guard t[0] == 0; effect t[0] = 255;},\n wait -> CS { guard  t[0] == 255 && id == 0 +1; },\n wait -> NCS { guard id != 0 +1 && t[0] == 255;},\n\n CS -> NCS {  effect id = 0; }; \n}\nprocess P_1 {\nstate NCS, try, wait, CS;\ninit NCS;\ntrans\n NCS -> try { guard id == 0; effect t[1] = 2;},\n\n try -> wait { effect t[1] = 3, id =1 +1; },\n\n wait -> wait { guard t[1] == 0; effect t[1] = 255;},\n wait -> CS { guard  t[1] == 255 && id == 1 +1; },\n wait -> NCS { guard id != 1 +1 && t[1] == 255;},\n\n CS -> NCS {  effect id = 0; }; \n}\nprocess P_2 {\nstate NCS, try, wait, CS;\ninit NCS;\ntrans\n NCS -> try { guard id == 0; effect t[2] = 2;},\n\n try -> wait { effect t[2] = 3, id =2 +1; },\n\n wait -> wait { guard t[2] == 0; effect t[2] = 255;},\n wait -> CS { guard  t[2] == 255 && id == 2 +1; },\n wait -> NCS { guard id != 2 +1 && t[2] == 255;},\n\n CS -> NCS {  effect id = 0; }; \n}\n\n\nsystem async;\n'),
    Regression("promela", "issue 16's table (a CSP# model there)", "traceback, or an 'invalid model' with an "
               "empty reason: a model that loads but nests too deeply to compile", "one line naming the file",
               "byte x; active proctype P() { x < 1 -> x = " + "(1 - " * 300 + "x" + ")" * 300 + " }\n"),
    Regression("csp", "slow profile, mutated", "hang: client_server.csp with a channel of 2^31 cells (and an "
               "empty range {2147483648..1})", "a located refusal naming the bound (16,384 slots)",
               '// Clients and one server over a synchronous channel (rendezvous, `channel req 0`).\n// Each client sends its id, waits until the server marked it served, then acknowledges.\n// Parameter C clients.  Clients are interchangeable (symmetry group S_C).\n#define C 3;\n\nchannel req 2147483648;\nvar served[C] : {2147483648..1} = [0(C)];\n\nClient(i) = req!i -> [served[i] == 1] ack.i{served[i] = 0;} -> Client(i);\nServer() = req?c -> handle.c{served[c] = 1;} -> Server();\n\nSystem() = (|||i:{0..C-1}@Client(i)) ||| Server();\n\n#assert System() deadlockfree;\n'),
    Regression("dve", "slow profile, mutated", "hang: fischer.1.dve with byte t[65536] spent > 60 s in the "
               "automorphism search", "a located refusal at the declaration naming the bound (16,384 slots)",
               '// discrete time simulation of fischer real time mutual exclusion protocol\n// parameters:\n// N = number of processes\n// MAX = matimal time\n// K1, K2 = protocol constants\n\n\n\n\n\n\n\nbyte id;\nbyte t[65536] = { 255 ,255 ,255  };\n\n\n\nprocess Timer {\nstate q;\ninit q;\ntrans\n q -> q { guard t[0] != 0  && t[1] != 0  && t[2] != 0 ;\neffect t[65536] = (t[0]-1) | ((t[0]==255)*255) ,t[1] = (t[1]-1) | ((t[1]==255)*255) ,t[2] = (t[2]-1) | ((t[2]==255)*255) ; };\n}\n\nprocess P_0 {\nstate NCS, try, wait, CS;\ninit NCS;\ntrans\n NCS -> try { guard id == 0; effect t[0] = 2;},\n\n try -> wait { effect t[0] = 3, id =0 +1; },\n\n wait -> wait { guard t[0] == 0; effect t[0] = 255;},\n wait -> CS { guard  t[0] == 255 && id == 0 +1; },\n wait -> NCS { guard id != 0 +1 && t[0] == 255;},\n\n CS -> NCS {  effect id = 0; }; \n}\nprocess P_1 {\nstate NCS, try, wait, CS;\ninit NCS;\ntrans\n NCS -> try { guard id == 0; effect t[1] = 2;},\n\n try -> wait { effect t[1] = 3, id =1 +1; },\n\n wait -> wait { guard t[1] == 0; effect t[1] = 255;},\n wait -> CS { guard  t[1] == 255 && id == 1 +1; },\n wait -> NCS { guard id != 1 +1 && t[1] == 255;},\n\n CS -> NCS {  effect id = 0; }; \n}\nprocess P_2 {\nstate NCS, try, wait, CS;\ninit NCS;\ntrans\n NCS -> try { guard id == 0; effect t[2] = 2;},\n\n try -> wait { effect t[2] = 3, id =2 +1; },\n\n wait -> wait { guard t[2] == 0; effect t[2] = 255;},\n wait -> CS { guard  t[2] == 255 && id == 2 +1; },\n wait -> NCS { guard id != 2 +1 && t[2] == 255;},\n\n CS -> NCS {  effect id = 0; }; \n}\n\n\nsystem async;\n'),
    Regression("promela", "slow profile, mutated", "hang: sort.pml with #define L 255 (seven buffers of 255 cells) "
               "spent > 60 s of CPU in the value analysis's fixpoint", "analysed: every summand's run costs "
               "what changed since its last run", sort_program(255)),
    Regression("promela", "slow profile, mutated", "hang: mutex_never.pml with #define N 2147483648 made 2^31 "
               "instances of an active [N] proctype", "a located refusal at the proctype: more than 255 processes, "
               "as in Spin", _MUTEX.replace("#define N 3", "#define N 2147483648")),
]


#: Regressions whose whole pipeline runs with ``-m slow`` only, each with the default test
#: that pins the same fix: sort.pml at L = 255 (~25 CPU s) hung in the value analysis, whose
#: work per slot at L = 255 tests/test_domains.py's
#: ``test_fixpoint_work_per_slot_does_not_grow_with_the_buffers`` bounds by L = 10's.
SLOW_REGRESSIONS = {"hang: sort.pml with #define L 255"}


def _regression_params():
    for r in REGRESSIONS:
        slow = any(r.failure.startswith(prefix) for prefix in SLOW_REGRESSIONS)
        yield pytest.param(r, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("regression", list(_regression_params()), ids=lambda r: f"{r.language}: {r.failure[:60]}")
def test_regression(regression):
    run_pipeline(regression.program, regression.language)


def test_constant_shift_fault_is_a_run_time_fault():
    from click.testing import CliRunner

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.pml")
        Path(path).write_text("byte x; active proctype P() { x = 1 << 300 }\n")
        result = CliRunner().invoke(main, ["explore", path])
        assert result.exit_code == 1 and "shift by 300" in result.output, result.output


def test_a_state_vector_past_the_slot_bound_is_refused_at_its_declaration(tmp_path):
    from click.testing import CliRunner

    text = (ROOT / "models" / "board_rows.pml").read_text()
    assert "row board[2];" in text
    path = tmp_path / "board.pml"
    path.write_text(text.replace("row board[2];", "row board[65536];"))
    result = CliRunner().invoke(main, ["analyze", str(path)])
    assert result.exit_code == 2
    assert f"{path}:4:" in result.output and "16,384 slots" in result.output, result.output


@pytest.mark.parametrize("language, program, where, message", [
    ("csp", "channel req 2147483648;\nP() = req!1 -> P();\n", ":1:9:", "16,384 slots"),
    ("csp", "channel c[2] 10000;\nP() = c[0]!1 -> P();\n", ":1:9:", "(20,002)"),
    ("csp", "channel c[2147483648] 0;\nP() = c[0]!1 -> P();\n", ":1:9:", "at most 16,384, got 2,147,483,648"),
    ("csp", "var v : {5..1} = 5;\nP() = Skip;\n", ":1:10:", "empty range {5..1} for 'v': 5 > 1"),
    ("dve", "byte t[65536];\nprocess P { state s; init s; trans s -> s {}; }\nsystem async;\n", ":1:8:",
     "16,384 slots"),
    ("dve", "byte a[10000];\nchannel {byte, byte} c[4000];\nprocess P { state s; init s; trans s -> s {}; }\n"
     "system async;\n", ":2:", "(18,001)"),
])
def test_a_declaration_past_the_bounds_is_refused_where_it_is_written(tmp_path, language, program, where, message):
    path = tmp_path / f"m{SUFFIX[language]}"
    path.write_text(program)
    result = CliRunner().invoke(main, ["analyze", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}{where}" in result.output and message in result.output, result.output
