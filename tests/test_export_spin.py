"""``symdetect spin`` (issue 31): a Spin verifier storing states up to the detected group.
The oracle is Spin itself: the generated ``sympan`` run with ``-DSAFETY -DNOREDUCE`` stores
exactly as many states as ``explore --reduce exact --spin-states`` says ("spin states stored
up to symmetry": the orbits of the states plain ``pan`` stores), fewer than ``pan``; with
partial-order reduction its verdict is ``pan``'s; a seeded assertion violation is found and
its trail replays in Spin; models outside the export are refused in one line.  Covered:
``_pid``-indexed arrays and pid values, channels indexed by pid (queues permuted with their
processes), several proctypes with channel identities, a group that is not a symmetric group
(a ring's rotations), structures, and the sorting fast path."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from detect.export.spin import SpinExportError, check_source, spin_symmetry

ROOT = Path(__file__).resolve().parents[1]
NO_OPT = ("--spin-option=-o1", "--spin-option=-o2", "--spin-option=-o3")

pytestmark = pytest.mark.skipif(shutil.which("spin") is None or shutil.which("gcc") is None,
                                reason="spin and gcc are needed")

MUTEX = """byte cnt;
bool lock;
active [3] proctype user()
{
	byte k;
	do
	:: atomic { !lock -> lock = true }; cnt++; k = cnt; assert(cnt == 1); cnt--; lock = false
	:: k < 2 -> k++
	od
}
"""

BROKEN = MUTEX.replace("atomic { !lock -> lock = true }", "!lock")  # both can pass: cnt == 2

#: clients ask a server over one channel, are answered on their own (to_cl[_pid]); the
#: server records the holder's pid
CHANS = """#define N 3
chan to_srv = [N] of { byte };
chan rel = [1] of { byte };
chan to_cl[N] = [1] of { bit };
byte holder = N;

active [N] proctype client()
{
	do
	:: to_srv ! _pid; to_cl[_pid] ? 1; assert(holder == _pid); rel ! _pid
	od
}

active proctype server()
{
	byte who;
	do
	:: to_srv ? who; holder = who; to_cl[who] ! 1; rel ? eval(who); holder = N
	od
}
"""

#: the server no longer waits for the release: two clients can be inside, holder is wrong
CHANS_BROKEN = CHANS.replace("rel ? eval(who); holder = N", "holder = N")

#: the token goes round (pid + 1) % N: the group is the rotations C_4, not S_4
RING = """#define N 4
byte tok = 255;
bit cnt[N];
active [N] proctype node()
{
	if :: tok == 255 -> tok = _pid :: else fi;
	do
	:: tok == _pid -> cnt[_pid] = 1 - cnt[_pid]; tok = (_pid + 1) % N
	od
}
"""

#: two servers with two clients each, channels handed over at run: S_2 wr S_2 (order 8),
#: moving processes of two proctypes, their queues and the channel identities they hold
TIERS = """mtype = { request, response };
chan server0_link = [1] of { mtype, chan };
chan server1_link = [1] of { mtype, chan };
chan clients0 = [1] of { mtype };
chan clients1 = [1] of { mtype };
chan clients2 = [1] of { mtype };
chan clients3 = [1] of { mtype };
chan null = [0] of { mtype };

proctype client(chan in; chan link)
{
	do
	:: link ! request, in; in ? response
	od
}

proctype server(chan c_link)
{
	chan current = null;
	do
	:: c_link ? request, current; current ! response; current = null
	od
}

init {
	atomic {
		run server(server0_link);
		run server(server1_link);
		run client(clients0, server0_link);
		run client(clients1, server0_link);
		run client(clients2, server1_link);
		run client(clients3, server1_link)
	}
}
"""

#: rows of a structure, one per user (a typedef of arrays in pan's vector)
BOARD = ROOT / "models" / "board_rows.pml"


# ---------------------------------------------------------------------------- a per-run store
# Several tests export the same model with the same options (peterson_pid five times, BROKEN
# six) and build the same sources with the same flags: each export and each build is made
# once per test run and copied after, keyed by the content of every input (the model's text
# and options; pan's sources and gcc's flags).  The store lives under the run's own pytest
# temporary directory (shared by its xdist workers), so nothing outlives the run.

_STORE: list[Path] = []


@pytest.fixture(autouse=True, scope="session")
def _store(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    # under xdist each worker's basetemp is popen-gwN inside the run's own directory
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    _STORE.append(root / "export-spin-store")
    _STORE[-1].mkdir(exist_ok=True)
    yield
    _STORE.pop()


def _key(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def _publish(entry: Path, fill) -> None:
    """Make ``entry`` by ``fill(tmp)`` into a fresh directory renamed into place (another
    worker may have made it meanwhile: then its copy stays)."""
    tmp = Path(tempfile.mkdtemp(dir=entry.parent, prefix=".new-"))
    fill(tmp)
    try:
        os.rename(tmp, entry)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def _export(args: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess | None:
    """``symdetect spin MODEL -o OUT ...`` from the store, or ``None`` (then run it): OUT gets
    the stored export's files and the output names OUT where the stored one named its own."""
    if not _STORE or len(args) < 4 or args[0] != "spin" or "-o" not in args:
        return None
    model, out = Path(cwd, args[1]), Path(cwd, args[args.index("-o") + 1])
    if not model.is_file() or out.exists():
        return None
    rest = tuple("OUT" if i == args.index("-o") + 1 else a for i, a in enumerate(args) if i > 1)
    entry = _STORE[-1] / ("spin-" + _key(model.name, model.read_bytes(), *rest))
    if not entry.exists():
        run = subprocess.run([sys.executable, "-m", "detect.cli", *args], cwd=cwd, capture_output=True,
                             text=True, timeout=300)
        if run.returncode == 0 and out.is_dir():
            def fill(tmp: Path) -> None:
                shutil.copytree(out, tmp / "files")
                (tmp / "run.json").write_text(json.dumps([str(out), run.stdout, run.stderr]))
            _publish(entry, fill)
        return run
    made, stdout, stderr = json.loads((entry / "run.json").read_text())
    shutil.copytree(entry / "files", out)
    return subprocess.CompletedProcess(args, 0, stdout.replace(made, str(out)), stderr.replace(made, str(out)))


def _gcc(out_dir: Path, flags: tuple[str, ...], exe: Path, source: str) -> None:
    """``gcc flags -o exe source`` in ``out_dir`` (check=True), or a copy of the same build:
    the key is the flags and every pan source in ``out_dir`` (pan.[bchmpt], sympan.c)."""
    cmd = ["gcc", *flags, "-o", str(exe), source]
    sources = sorted(f for f in out_dir.iterdir() if f.is_file() and (f.name == "sympan.c" or (
        f.name.startswith("pan.") and f.suffix in (".b", ".c", ".h", ".m", ".p", ".t"))))
    if not _STORE or not sources:
        subprocess.run(cmd, cwd=out_dir, check=True, capture_output=True, timeout=300)
        return
    entry = _STORE[-1] / ("gcc-" + _key(source, *flags, *(p for f in sources for p in (f.name, f.read_bytes()))))
    if not entry.exists():
        subprocess.run(cmd, cwd=out_dir, check=True, capture_output=True, timeout=300)
        _publish(entry, lambda tmp: shutil.copy2(exe, tmp / "exe"))
        return
    shutil.copy2(entry / "exe", exe)


def _cli(*args, cwd=ROOT):
    stored = _export(args, Path(cwd))
    if stored is not None:
        return stored
    return subprocess.run([sys.executable, "-m", "detect.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def _pan(out_dir: Path, source: str, *flags: str, every_error: bool = True) -> tuple[int, int]:
    """(states stored, errors) of ``source`` (pan.c or sympan.c) built with ``flags``; with
    ``every_error`` pan goes on past errors (-c0), else it stops at the first and writes
    its trail."""
    exe = out_dir / (Path(source).stem + "_" + "_".join(f.strip("-") for f in flags))
    _gcc(out_dir, ("-O0", *flags), exe, source)
    # -c0: every error counted and the search goes on, so that the counts are complete
    run = subprocess.run([str(exe), "-m100000", *(("-c0",) if every_error else ())], cwd=out_dir,
                         capture_output=True, text=True, timeout=300)
    stored = int(re.search(r"(\d+) states, stored", run.stdout).group(1))
    # BFS also stores the states inside atomic sequences, reported apart: "N nominal states"
    nominal = re.search(r"(\d+) nominal states", run.stdout)
    stored = int(nominal.group(1)) if nominal else stored
    errors = int(re.search(r"errors: (\d+)", run.stdout).group(1))
    return stored, errors


def _run_built(out_dir: Path, source: str, *flags: str) -> str:
    """pan's output of ``source`` built with ``flags`` (run with -c0)."""
    exe = out_dir / ("raw_" + Path(source).stem + "_" + "_".join(f.strip("-") for f in flags))
    _gcc(out_dir, ("-O0", *flags), exe, source)
    return subprocess.run([str(exe), "-m100000", "-c0"], cwd=out_dir, capture_output=True, text=True,
                          timeout=300).stdout


def _ours(model: Path) -> tuple[int, int]:
    """``explore --reduce exact --spin-states``'s counts of Spin's states: up to symmetry, and
    unreduced (plain pan's, checked against Spin by tests/test_differential_spin.py)."""
    run = _cli("explore", str(model), "--reduce", "exact", "--spin-states", "--json")
    assert run.returncode in (0, 1), run.stderr
    import json

    data = json.loads(run.stdout)
    return (int(data["spin states stored up to symmetry"].replace(",", "")),
            int(data["spin states stored"].replace(",", "")))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    model = tmp_path / f"{name}.pml"
    model.write_text(text)
    return model


@pytest.mark.parametrize("name,text,expected", [
    ("mutex", MUTEX, (170, 800)),          # S_3 sorting whole blocks
    ("chans", CHANS, (115, 219)),          # pid values, channels indexed by pid
    ("ring", RING, (1120, 4472)),          # C_4: rotations only
    ("tiers", TIERS, None),                # two proctypes, channel identities
    ("board", None, (105, 196)),           # a structure's fields
])
def test_sympan_stores_what_explore_counts(tmp_path, name, text, expected):
    model = BOARD if text is None else _write(tmp_path, name, text)
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out), *NO_OPT)
    assert run.returncode == 0, run.stderr
    assert "gcc -O2 -DSAFETY -DNOREDUCE -o sympan sympan.c" in run.stdout
    reduced, errors = _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")
    ours, plain = _ours(model)
    assert errors == 0
    assert reduced == ours < plain
    if expected is not None:
        assert (reduced, plain) == expected


def test_peterson_with_pid_values_at_n4(tmp_path):
    """peterson_pid (flag[_pid], turn[k] = _pid) with -D N=4: Spin reads the copy with N = 4."""
    out = tmp_path / "out"
    run = _cli("spin", str(ROOT / "models" / "peterson_pid.pml"), "-D", "N=4", "-o", str(out), *NO_OPT)
    assert run.returncode == 0, run.stderr
    assert "group of order 24" in run.stdout
    assert _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE") == (4368, 0)


@pytest.mark.parametrize("name,text", [("broken", BROKEN), ("chans_broken", CHANS_BROKEN)])
def test_seeded_violation_found_with_and_without_por_and_replayed_by_spin(tmp_path, name, text):
    model = _write(tmp_path, name, text)
    out = tmp_path / "out"
    assert _cli("spin", str(model), "-o", str(out)).returncode == 0
    assert _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")[1] > 0
    # with partial-order reduction (no -DNOREDUCE) too, as unreduced pan
    assert _pan(out, "sympan.c", "-DSAFETY")[1] > 0 and _pan(out, "pan.c", "-DSAFETY")[1] > 0
    # the reduced verifier's own trail
    assert _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE", every_error=False)[1] == 1
    trail = out / f"{name}.pml.trail"
    assert trail.exists()
    replay = subprocess.run(["spin", "-t", "-p", f"{name}.pml"], cwd=out, capture_output=True, text=True,
                            timeout=120)
    assert "assertion violated" in replay.stdout, replay.stdout[-500:]


@pytest.mark.parametrize("text", [MUTEX, CHANS, RING])
def test_por_verdict_equals_unreduced_spin(tmp_path, text):
    model = _write(tmp_path, "m", text)
    out = tmp_path / "out"
    assert _cli("spin", str(model), "-o", str(out)).returncode == 0
    assert _pan(out, "sympan.c", "-DSAFETY")[1] == _pan(out, "pan.c", "-DSAFETY")[1] == 0


@pytest.mark.parametrize("text,why", [
    # the claim tells the two processes apart (x == 1 is pid 0's mark): its stabiliser is trivial
    ("byte x;\nactive [2] proctype p() { x = _pid + 1 }\nltl q { <> (x == 1) }", "no symmetry detected"),
    ("byte x;\nactive proctype p() { x = 1 }", "no symmetry detected"),
    (RING, "--strategy sort needs"),
])
def test_unsupported_models_are_refused_in_one_line(tmp_path, text, why):
    model = tmp_path / "m.pml"
    model.write_text(text)
    strategy = ("--strategy", "sort") if why.startswith("--strategy") else ()
    run = _cli("spin", str(model), "-o", str(tmp_path / "out"), *strategy)
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1 and why in run.stderr, run.stderr
    assert not (tmp_path / "out" / "sympan.c").exists()


@pytest.mark.parametrize("model,strategies,count", [
    ("mutex", ("sort", "enumerate"), 170),
    # pid values renamed: S_3 on pids (exact) and all elements (enumerate)
    (ROOT / "models" / "peterson_pid.pml", ("exact", "enumerate"), 633),
])
def test_strategies_agree(tmp_path, model, strategies, count):
    """The sorting fast path, S_m on pids and the least image over all elements (the native
    explorer's canonicalisers, canon.c) store as many states."""
    if model == "mutex":
        model = _write(tmp_path, "mutex", MUTEX)
    counts = []
    for strategy in strategies:
        out = tmp_path / strategy
        run = _cli("spin", str(model), "-o", str(out), "--strategy", strategy, *NO_OPT)
        assert run.returncode == 0, run.stderr
        assert ("on 3 pids" in run.stdout) == (strategy == "exact" and "peterson" in str(model))
        counts.append(_pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")[0])
    assert counts == [count, count]


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_random_replicated_models(tmp_path, seed):
    """``promela_gen.replicated``: random models with three copies of a proctype (group 2 on
    these seeds, one moving processes of two alike proctypes): sympan's count is ours, its
    verdict pan's, errors counted past the first (-c0)."""
    from tests import promela_gen

    model = _write(tmp_path, f"r{seed}", promela_gen.replicated(seed))
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out), *NO_OPT)
    assert run.returncode == 0, run.stderr
    reduced, errors = _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")
    ours, plain = _ours(model)
    assert reduced == ours < plain
    assert (errors > 0) == (_pan(out, "pan.c", "-DSAFETY", "-DNOREDUCE")[1] > 0)


def test_models_directory_is_refused_or_exact(tmp_path):
    """Every bundled Promela model with a group: refused in one line, or sympan's count is ours."""
    from detect.checking.spin_counts import spin_stored_count
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    checked = 0
    for model in sorted((ROOT / "models").glob("*.pml")):
        text = model.read_text()
        try:
            check_source(text)
            detection = detect(load_model(model, domain_states=1_000_000), domain_states=1_000_000)
            if detection.group.order == 1:
                continue
            spin_symmetry(detection.model, detection.group, text)
        except SpinExportError as why:
            assert "\n" not in str(why)
            continue
        ours = spin_stored_count(detection.model, group=detection.group).reduced
        run = _cli("spin", str(model), "-o", str(tmp_path / model.stem), *NO_OPT)
        assert run.returncode == 0, run.stderr
        assert _pan(tmp_path / model.stem, "sympan.c", "-DSAFETY", "-DNOREDUCE")[0] == ours, model.name
        checked += 1
    assert checked >= 5


#: a relay of the token between two processes; the formula holds in no run (tok is never 3),
#: so every cycle is an acceptance cycle of its claim
RELAY = """byte tok = 2;
bit busy;
active [2] proctype p()
{
	atomic { if :: tok == 2 -> tok = _pid :: else fi };
	do
	:: tok == _pid -> busy = 1; busy = 0; tok = 1 - _pid
	od
}
ltl live { []<> (tok == 3) }
"""

#: BROKEN with a safety formula: the claim finds what the assertion finds
BROKEN_LTL = BROKEN.replace("assert(cnt == 1); ", "") + "ltl safe { [] (cnt <= 1) }\n"


def _pan_a(out_dir: Path, source: str, *flags: str, claim: str = "", trail: bool = False) -> tuple[int, int]:
    """(states stored, errors) of ``source`` built with ``flags`` and run with ``-a`` (claim
    ``-N claim``): acceptance cycles, no fairness."""
    exe = out_dir / (Path(source).stem + "_a_" + "_".join(f.strip("-") for f in flags))
    _gcc(out_dir, ("-O0", "-w", *flags), exe, source)
    run = subprocess.run([str(exe), "-m100000", "-a", *([f"-N{claim}"] if claim else []), *(() if trail else ("-c0",))],
                         cwd=out_dir, capture_output=True, text=True, timeout=300)
    stored = int(re.search(r"(\d+) states, stored", run.stdout).group(1))
    errors = int(re.search(r"errors: (\d+)", run.stdout).group(1))
    return stored, errors


@pytest.mark.parametrize("model,claim,order,violated", [
    (ROOT / "models" / "token_pool_ltl.pml", "bounded", 6, False),
    (ROOT / "models" / "token_pool_ltl.pml", "busy", 6, False),
    (ROOT / "models" / "token_pool_ltl.pml", "served", 2, True),      # names client[1]: S_2 on the others
    (ROOT / "models" / "token_pool_ltl.pml", "exclusive", 2, True),   # names clients 1 and 2: their swap
    (ROOT / "models" / "mutex_never.pml", "", 2, False),
    ("relay", "live", 2, True),                                       # an acceptance cycle through the orbit
    ("broken_ltl", "safe", 6, True),
])
def test_claims_reduce_by_the_stabiliser_and_pan_a_verdicts_agree(tmp_path, model, claim, order, violated):
    """With an ``ltl`` block or a never claim, the group is the one detected on the product
    (its propositions' stabiliser); ``sympan -a`` finds an error exactly where ``pan -a`` does,
    without and with partial-order reduction, storing at most as many states."""
    if isinstance(model, str):
        model = _write(tmp_path, model, RELAY if model == "relay" else BROKEN_LTL)
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out), *(("--ltl", claim) if claim else ()), *NO_OPT)
    assert run.returncode == 0, run.stderr
    assert f"group of order {order} " in run.stdout and "-a" in run.stdout
    for flags in (("-DNOREDUCE",), ()):
        reduced, errors = _pan_a(out, "sympan.c", *flags, claim=claim)
        plain, plain_errors = _pan_a(out, "pan.c", *flags, claim=claim)
        assert (errors > 0) == (plain_errors > 0) == violated
        assert reduced <= plain


def test_sympan_runs_only_the_claim_it_was_written_for(tmp_path):
    """The group of ``served`` is not ``busy``'s: a sympan written for one claim stops on another."""
    out = tmp_path / "out"
    assert _cli("spin", str(ROOT / "models" / "token_pool_ltl.pml"), "-o", str(out), "--ltl", "served",
                *NO_OPT).returncode == 0
    subprocess.run(["gcc", "-O0", "-w", "-o", "s", "sympan.c"], cwd=out, check=True, timeout=300)
    run = subprocess.run(["./s", "-a", "-Nbusy"], cwd=out, capture_output=True, text=True, timeout=120)
    assert "another claim than the one analysed" in run.stdout
    fair = subprocess.run(["./s", "-a", "-f", "-Nserved"], cwd=out, capture_output=True, text=True, timeout=120)
    assert "weak fairness (-f) is not supported" in fair.stdout


def test_claim_violation_trail_replays_in_spin(tmp_path):
    model = _write(tmp_path, "relay", RELAY)
    out = tmp_path / "out"
    assert _cli("spin", str(model), "-o", str(out)).returncode == 0
    assert _pan_a(out, "sympan.c", trail=True)[1] == 1
    replay = subprocess.run(["spin", "-t", "-p", "relay.pml"], cwd=out, capture_output=True, text=True, timeout=120)
    assert "CYCLE" in replay.stdout or "cycle" in replay.stdout, replay.stdout[-500:]


@pytest.mark.parametrize("seed", [33, 39, 41])
def test_random_model_formula_pairs(tmp_path, seed):
    """``promela_gen.replicated_ltl``: random models with three copies of a proctype and a
    random formula (seeds whose stabiliser is larger than 1): ``pan -a``'s verdict."""
    from tests import promela_gen

    model = _write(tmp_path, f"r{seed}", promela_gen.replicated_ltl(seed))
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out), *NO_OPT)
    assert run.returncode == 0, run.stderr
    for flags in (("-DNOREDUCE",), ()):
        reduced, errors = _pan_a(out, "sympan.c", *flags)
        plain, plain_errors = _pan_a(out, "pan.c", *flags)
        assert (errors > 0) == (plain_errors > 0) and reduced <= plain


@pytest.mark.parametrize("flags,relation", [
    (("-DSAFETY", "-DNOREDUCE", "-DCOLLAPSE"), "equal"),
    (("-DSAFETY", "-DNOREDUCE", "-DHC"), "at most"),
    (("-DSAFETY", "-DNOREDUCE", "-DBITSTATE"), "at most"),
    (("-DSAFETY", "-DNCORE=2"), "verdict"),
])
def test_spin_storage_options(tmp_path, flags, relation):
    """COLLAPSE stores as many states as the exact store, hash compaction and bitstate at most
    as many (either may lose states to collisions), multi-core finds what one core finds;
    all on the canonical vector (pan's stores are wrapped)."""
    out = tmp_path / "out"
    assert _cli("spin", str(ROOT / "models" / "peterson_pid.pml"), "-o", str(out), *NO_OPT).returncode == 0
    exact = _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")
    assert exact == (633, 0)
    stored, errors = _pan(out, "sympan.c", *flags)
    assert errors == 0
    if relation == "equal":
        assert stored == exact[0]
    elif relation == "at most":
        assert 0 < stored <= exact[0]
    broken = _write(tmp_path, "broken", BROKEN)
    assert _cli("spin", str(broken), "-o", str(tmp_path / "b")).returncode == 0
    assert _pan(tmp_path / "b", "sympan.c", *flags)[1] > 0
    if relation != "verdict":
        # its trail replays in Spin (a multi-core trail does not, pan's own neither)
        assert _pan(tmp_path / "b", "sympan.c", *flags, every_error=False)[1] == 1
        replay = subprocess.run(["spin", "-t", "-p", "broken.pml"], cwd=tmp_path / "b", capture_output=True,
                                text=True, timeout=120)
        assert "assertion violated" in replay.stdout, replay.stdout[-500:]


def test_dead_variables_spin_removes_are_left_out(tmp_path):
    """Without -o2 Spin drops ``busy`` (written, never read) from its vector: sympan too."""
    model = _write(tmp_path, "relay", RELAY.replace("ltl live { []<> (tok == 3) }", ""))
    out = tmp_path / "out"
    assert _cli("spin", str(model), "-o", str(out)).returncode == 0
    assert _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")[0] < _pan(out, "pan.c", "-DSAFETY", "-DNOREDUCE")[0]


P319 = ROOT.parent / "shared" / "corpus" / "spin" / "Examples" / "Book_1991" / "p319.pml"


@pytest.mark.skipif(not P319.exists(), reason="the shared Spin corpus (../shared/corpus) is absent")
def test_processes_moved_keeping_their_parameters(tmp_path):
    """Book_1991/p319: the stations rotate (with busy[] and the channels they use) while each
    keeps its parameter ``id``: pan's fields are permuted though no block moves whole.
    sympan stores our count (352 of pan's 2,066), errors found as by pan."""
    out = tmp_path / "out"
    run = _cli("spin", str(P319), "-o", str(out), *NO_OPT)
    assert run.returncode == 0, run.stderr
    assert "group of order 6 " in run.stdout
    reduced, errors = _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")
    plain, plain_errors = _pan(out, "pan.c", "-DSAFETY", "-DNOREDUCE")
    assert (reduced, plain) == (352, 2066) and errors > 0 and plain_errors > 0


@pytest.mark.parametrize("name,text,count", [
    ("mutex", MUTEX, 170),   # sorted blocks
    ("chans", CHANS, 115),   # S_2 on pids, queues moved with their processes
    ("ring", RING, 1120),    # every element (C_4)
])
def test_breadth_first_builds_store_the_same_orbits(tmp_path, name, text, count):
    """-DBFS stores through pan.c's own h_store and -DBFS_PAR through pan.p's bfs_do_store,
    both wrapped: as many states as the depth-first sympan (pan's "nominal states": BFS also
    stores the states inside atomic sequences); a seeded violation is found.
    TRIX (processes and channels outside ``now``) stops the build with the reason."""
    model = _write(tmp_path, name, text)
    out = tmp_path / "out"
    assert _cli("spin", str(model), "-o", str(out), *NO_OPT).returncode == 0
    assert _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")[0] == count
    assert _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE", "-DBFS") == (count, 0)
    # BFS_PAR counts the states inside atomic sequences as nominal too: compare them all with BFS's
    every = {flag: int(re.search(r"(\d+) states, stored", _run_built(out, "sympan.c", "-DSAFETY", "-DNOREDUCE",
                                                                     flag)).group(1))
             for flag in ("-DBFS", "-DBFS_PAR")}
    assert every["-DBFS"] == every["-DBFS_PAR"] >= count
    trix = subprocess.run(["gcc", "-DSAFETY", "-DBFS", "-DTRIX", "-o", "trix", "sympan.c"], cwd=out,
                          capture_output=True, text=True, timeout=300)
    assert trix.returncode != 0 and "TRIX keeps processes and channels outside now" in trix.stderr
    if name == "mutex":
        broken = _write(tmp_path, "broken", BROKEN)
        assert _cli("spin", str(broken), "-o", str(tmp_path / "b")).returncode == 0
        for flag in ("-DBFS", "-DBFS_PAR"):
            assert _pan(tmp_path / "b", "sympan.c", "-DSAFETY", "-DNOREDUCE", flag)[1] > 0
            assert _pan(tmp_path / "b", "sympan.c", "-DSAFETY", flag)[1] > 0


SNOOPY = ROOT.parent / "shared" / "corpus" / "spin" / "Examples" / "snoopy.pml"
DISKHEAD = ROOT.parent / "shared" / "corpus" / "spin" / "Examples" / "LTL" / "diskhead.pml"


@pytest.mark.skipif(not SNOOPY.exists(), reason="the shared Spin corpus (../shared/corpus) is absent")
def test_program_counter_renaming_needs_pans_automata(tmp_path):
    """snoopy's generator swaps the states of symmetric branches inside the bus process (no
    block move): without pan's automata ``spin_symmetry`` says so, naming the process and our
    pc values (``export_verifier`` then reads them: results/sympan_corpus.md has snoopy's row)."""
    from detect.export.spin import PcRenamingNeeded
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    detection = detect(load_model(SNOOPY, domain_states=1_000_000), domain_states=1_000_000)
    with pytest.raises(PcRenamingNeeded) as why:
        spin_symmetry(detection.model, detection.group, SNOOPY.read_text())
    assert "program counter of bus_5.pc within its own automaton" in str(why.value)
    assert "4->5, 5->4" in str(why.value)


#: the hub serves two channels by symmetric options of one loop: the generator swapping the
#: senders (and the channels, got0/got1) renames the hub's program counter inside its own
#: automaton -- pan's states 2 and 4 (after in0?v, in1?v) swap, as our pcs 4 and 5
HUB = """byte got0, got1;
chan in0 = [1] of { byte };
chan in1 = [1] of { byte };

proctype sender(chan out)
{
	byte k;
	do
	:: k < 2 -> out!k; k = k + 1
	:: k == 2 -> k = 0
	od
}

active proctype hub()
{
	byte v;
	do
	:: in0?v -> got0 = v + 1
	:: in1?v -> got1 = v + 1
	od
}

init { atomic { run sender(in0); run sender(in1) } }
"""

#: a symmetric seed: the hub asserts on both options what the senders break
HUB_BROKEN = HUB.replace("in0?v -> got0", "in0?v -> assert(v < 1); got0").replace(
    "in1?v -> got1", "in1?v -> assert(v < 1); got1")

#: both options on one line: which of pan's transitions is which of ours cannot be told
HUB_ONE_LINE = HUB.replace(":: in0?v -> got0 = v + 1\n\t:: in1?v", ":: in0?v -> got0 = v + 1 :: in1?v")

#: HUB_ONE_LINE with two more processes swapped by a generator of their own
HUB_AND_PAIR = HUB_ONE_LINE + """
active [2] proctype idle()
{
	byte c;
	do
	:: c < 2 -> c = c + 1
	:: c == 2 -> c = 0
	od
}
"""


def test_symmetric_branches_inside_one_process(tmp_path):
    """The hub's pc renaming is carried into pan's numbering (panmap): sympan stores our
    count of orbits (800 of pan's 1,578, pinned against Spin and our explorer)."""
    model = _write(tmp_path, "hub", HUB)
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out), *NO_OPT)
    assert run.returncode == 0, run.stderr
    assert "program counters of hub_0" in run.stdout and "group of order 2 " in run.stdout
    reduced, errors = _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")
    plain, _ = _pan(out, "pan.c", "-DSAFETY", "-DNOREDUCE")
    assert (reduced, plain, errors) == (800, 1578, 0)
    assert _ours(model) == (800, 1578)
    # the quotient search (spin_counts.spin_stored_orbits) counts the same orbits
    from detect.checking.spin_counts import spin_stored_orbits
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    detection = detect(load_model(model, domain_states=1_000_000), domain_states=1_000_000)
    assert spin_stored_orbits(detection.model, detection.group) == 800
    # with partial-order reduction: pan's verdict
    assert _pan(out, "sympan.c", "-DSAFETY")[1] == _pan(out, "pan.c", "-DSAFETY")[1] == 0


def test_pc_renaming_seeded_violation_and_trail(tmp_path):
    """Spin's default options, statement merging on (the pcs paired with -o3's automata, which
    pan numbers alike): the seeded violation is found, with and without POR and
    breadth-first, and sympan's trail replays in Spin."""
    model = _write(tmp_path, "hub_broken", HUB_BROKEN)
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert "Spin run as spin -a" in run.stdout and "-o3" not in run.stdout, run.stdout
    for flags in (("-DSAFETY", "-DNOREDUCE"), ("-DSAFETY",), ("-DSAFETY", "-DNOREDUCE", "-DBFS")):
        assert _pan(out, "sympan.c", *flags)[1] > 0
    assert _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE", every_error=False)[1] == 1
    replay = subprocess.run(["spin", "-t", "-p", "hub_broken.pml"], cwd=out, capture_output=True, text=True,
                            timeout=120)
    assert "assertion violated" in replay.stdout, replay.stdout[-500:]


def test_ambiguous_pairing_is_refused_in_one_line(tmp_path):
    """Options on one line pair with pan's in two ways: the only generator is dropped, and with
    nothing left the export is refused, saying why."""
    model = _write(tmp_path, "hub1", HUB_ONE_LINE)
    run = _cli("spin", str(model), "-o", str(tmp_path / "out"), *NO_OPT)
    assert run.returncode == 2
    line = run.stderr.strip()
    assert "\n" not in line and "generator 0 dropped: hub_0.pc" in line and "more than one way" in line, line


def test_a_generator_pan_cannot_follow_is_dropped_the_others_kept(tmp_path):
    """The hub's generator is dropped (ambiguous pairing), the idle pair's kept: sympan stores
    the orbits of the subgroup the kept one generates (our count for that subgroup)."""
    from detect.checking.spin_counts import spin_stored_count
    from detect.export.spin import export_verifier, kept_group
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    model = _write(tmp_path, "hubpair", HUB_AND_PAIR)
    detection = detect(load_model(model, domain_states=1_000_000), domain_states=1_000_000)
    assert detection.group.order == 4
    out = tmp_path / "out"
    sym, _, used = export_verifier(str(model), (), str(out), detection.model, detection.group, HUB_AND_PAIR,
                                   spin_options=("-o1", "-o2", "-o3"))
    assert sym.order == 2 and len(sym.dropped) == 1 and "more than one way" in sym.dropped[0]
    ours = spin_stored_count(detection.model, group=kept_group(detection.group, sym))
    reduced, _ = _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")
    plain, _ = _pan(out, "pan.c", "-DSAFETY", "-DNOREDUCE")
    assert reduced == ours.reduced < plain == ours.stored


def test_spin_states_reduce_by_the_group_sympan_keeps(tmp_path):
    """``explore --reduce exact --spin-states`` counts the orbits of the group sympan reduces
    by -- the hub's generator dropped, as the export drops it -- not of the detected group of
    order 4 (before: 16,800; sympan 33,138, pan 56,808), and names the generator dropped and why."""
    import json

    model = _write(tmp_path, "hubpair", HUB_AND_PAIR)
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out), *NO_OPT)
    assert run.returncode == 0, run.stderr
    assert "generator 1 dropped" in run.stdout
    reduced, _ = _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")
    cli = _cli("explore", str(model), "--reduce", "exact", "--spin-states", "--json")
    assert cli.returncode in (0, 1), cli.stderr
    data = json.loads(cli.stdout)
    assert data["group_order"] == 4 and data["spin symmetry order"] == 2
    assert int(data["spin states stored up to symmetry"].replace(",", "")) == reduced == 33138
    dropped = data["spin symmetry dropped"]
    assert "generator 1 dropped: hub_0.pc" in dropped and "more than one way" in dropped, dropped
    text = _cli("explore", str(model), "--reduce", "exact", "--spin-states")
    assert "spin symmetry dropped" in text.stdout and "generator 1 dropped" in text.stdout


@pytest.mark.parametrize("name,text,counts", [
    # with -o1 -o2 (data flow off): 639/1,258, 7,548/11,322, 1,122/2,224
    ("hub", None, (366, 712)),           # the senders' `k == 2 -> k = 0` merged
    ("hubpair", None, (4272, 6408)),     # and the idle pair's options; the hub's generator dropped
    ("h7", 7, (694, 1373)),              # promela_gen.hubbed(7): the hub's atomic options merged too
])
def test_statement_merging_kept_and_counted(tmp_path, name, text, counts):
    """``symdetect spin`` keeps Spin's statement merging (our pcs paired with -o3's automata,
    the merged ones checked to be numbered alike): sympan stores what ``explore --spin-states
    --spin-merging`` counts (states inside a merged chain are not stored), pinned; pan's own
    count too.  Spin's defaults (plain spin -a): its data-flow optimisation on too, modelled
    (``export.spin.pan_dataflow``: the write-only ``got0``/``got1`` hidden, the dead ``k``
    reset)."""
    import json

    from tests import promela_gen

    source = {"hub": HUB, "hubpair": HUB_AND_PAIR}.get(name) or promela_gen.hubbed(text)
    model = _write(tmp_path, name, source)
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert "Spin run as spin -a" in run.stdout, run.stdout
    reduced, _ = _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")
    plain, _ = _pan(out, "pan.c", "-DSAFETY", "-DNOREDUCE")
    cli = _cli("explore", str(model), "--reduce", "exact", "--spin-states", "--spin-merging", "--json")
    assert cli.returncode in (0, 1), cli.stderr
    data = json.loads(cli.stdout)
    ours = (int(data["spin states stored up to symmetry"].replace(",", "")),
            int(data["spin states stored"].replace(",", "")))
    assert (reduced, plain) == ours == counts
    assert "passed over by pan's merged transitions" in data["spin merging"]
    assert data["spin dataflow"].startswith("Spin's data-flow optimisation modelled")


def test_merged_automaton_not_numbered_as_o3s_falls_back_to_o3(tmp_path, monkeypatch):
    """Where a merged automaton is not numbered as -o3's (forced here), the export runs Spin
    with -o3 and says why in one line; sympan then stores the -o3 count (ours without
    --spin-merging)."""
    from detect.export import panmap
    from detect.export.spin import export_verifier
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    model = _write(tmp_path, "hub", HUB)
    detection = detect(load_model(model, domain_states=1_000_000), domain_states=1_000_000)
    monkeypatch.setattr(panmap, "same_numbering", lambda merged, plain: "numbered otherwise (forced)")
    out = tmp_path / "out"
    sym, _, used = export_verifier(str(model), (), str(out), detection.model, detection.group, HUB,
                                   spin_options=("-o1", "-o2"))
    assert used == ("-o1", "-o2", "-o3")
    assert sym.merging.startswith("statement merging turned off (-o3): ") and "\n" not in sym.merging
    assert "numbered otherwise (forced)" in sym.merging
    assert _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")[0] == _ours(model)[0] == 800


@pytest.mark.parametrize("seed,counts", [(2, None), (7, (1408, 2794)), (8, (728, 1434))])
def test_random_hubs_with_symmetric_options(tmp_path, seed, counts):
    """``promela_gen.hubbed``: random hubs whose options (atomic sequences with a kept jump,
    ``skip`` inside atomic, if/else, d_step, an inline expanded per option, goto) are swapped
    with the senders: sympan stores our count, fewer than pan (seeds 7, 8 pinned)."""
    from tests import promela_gen

    model = _write(tmp_path, f"h{seed}", promela_gen.hubbed(seed))
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out), *NO_OPT)
    assert run.returncode == 0, run.stderr
    assert "program counters of hub_0" in run.stdout and "dropped" not in run.stdout
    reduced, errors = _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE")
    plain, _ = _pan(out, "pan.c", "-DSAFETY", "-DNOREDUCE")
    ours, ours_plain = _ours(model)
    assert reduced == ours < plain == ours_plain and errors == 0
    if counts is not None:
        assert (reduced, plain) == counts


@pytest.mark.skipif(not DISKHEAD.exists(), reason="the shared Spin corpus (../shared/corpus) is absent")
def test_diskhead_with_its_ltl_and_bfs(tmp_path):
    """diskhead with ltl p: the stabiliser swaps clients 0 and 2, i.e. two options of the
    scheduler's loop with an inline expanded in each: sympan stores our count (182 of 337),
    the claim's verdict is pan's (-a), and the breadth-first build (the claim checked for
    safety only, as pan's BFS does) runs with it."""
    out = tmp_path / "out"
    run = _cli("spin", str(DISKHEAD), "-o", str(out), "--ltl", "p", *NO_OPT)
    assert run.returncode == 0, run.stderr
    assert "program counters of disk_sched_0" in run.stdout
    assert _pan(out, "sympan.c", "-DSAFETY", "-DNOREDUCE") == (182, 0)
    assert _pan(out, "pan.c", "-DSAFETY", "-DNOREDUCE") == (337, 0)
    cli = _cli("explore", str(DISKHEAD), "--ltl", "p", "--reduce", "exact", "--spin-states", "--json")
    import json

    data = json.loads(cli.stdout)
    assert (data["spin states stored up to symmetry"], data["spin states stored"]) == ("182", "337")
    for flags in (("-DNOREDUCE",), ()):
        assert _pan_a(out, "sympan.c", *flags, claim="p")[1] == _pan_a(out, "pan.c", *flags, claim="p")[1] == 0
    bfs, errors = _pan(out, "sympan.c", "-DNOREDUCE", "-DBFS")
    assert errors == 0 and bfs <= _pan(out, "pan.c", "-DNOREDUCE", "-DBFS")[0]
