"""``export --format murphi`` (issue 31): the detected index symmetries handed to CMurphi as
``Scalarset``s.  The oracle is CMurphi itself: starting from copies of scalarset models with
the scalarsets replaced by subranges, the exported file's ``-sym1`` count equals the
original's; ``mu`` accepts every type our check accepts and refuses the ones we refuse for
arithmetic; a ring's rotations are reported as left out."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import cmurphi
from detect.export import export_chunks
from frontends.murphi import load
from frontends.murphi.scalarsets import candidates, check, parse, rewrite

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "murphi"

#: (model, constants for CMurphi: it has no -D)
MODELS = [
    (ROOT / "models" / "peterson_scalarset.m", {}),
    (CORPUS / "n_peterson.m", {"N": 3}),
    (CORPUS / "2_peterson.m", {}),
]

#: the subrange types that cannot be scalarsets (arithmetic / ordered comparison on levels)
REFUSED = {"peterson_scalarset": {"level_t"}, "n_peterson": {"priority"}, "2_peterson": set()}

RING = """Const N: 4;
Type idx: 0..N-1;
Var c: Array [idx] Of 0..1;
Ruleset i: idx Do
  Rule "take" c[i] = 0 & c[(i + 1) % N] = 0 ==> Begin c[i] := 1; End;
  Rule "drop" c[i] = 1 ==> Begin c[i] := 0; End;
End;
Startstate Begin For i: idx Do c[i] := 0; End; End;
"""


def _desymmetrised(original: Path, constants: dict) -> str:
    """The original model with its Const values set and every Scalarset(X) written 0..X-1."""
    text = cmurphi.with_constants(original.read_text(), constants) if constants else original.read_text()
    return re.sub(r"(?i)scalarset\s*\(\s*(\w+)\s*\)", r"0..\1-1", text)


def _exported(text: str, tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.m"
    path.write_text(text)
    return "".join(export_chunks(load(path), "murphi"))


@pytest.fixture(scope="module")
def home():
    why = cmurphi.unavailable()
    if why:
        pytest.skip(why)
    return cmurphi.build()


def _sym1(home, text: str, workdir: Path) -> int:
    return cmurphi.run_model(cmurphi.compile_model(home, text, workdir), options=("-sym1",)).states


@pytest.mark.parametrize("original,constants", MODELS, ids=[m.stem for m, _ in MODELS])
def test_exported_scalarsets_reduce_as_the_original(home, tmp_path, original, constants):
    if not original.exists():
        pytest.skip(f"{original} absent")
    scalarset_text = cmurphi.with_constants(original.read_text(), constants) if constants else original.read_text()
    subrange_text = _desymmetrised(original, constants)
    out = _exported(subrange_text, tmp_path, "sub")
    assert "declared as Scalarset: pid" in out
    want = _sym1(home, scalarset_text, tmp_path / "orig")
    plain = _sym1(home, subrange_text, tmp_path / "sub")
    got = _sym1(home, out, tmp_path / "exp")
    assert got == want < plain


def test_peterson_counts(home, tmp_path):
    """The measured numbers (the model's header: 894 states, 174 with -sym1)."""
    out = _exported(_desymmetrised(ROOT / "models" / "peterson_scalarset.m", {}), tmp_path, "p")
    assert re.search(r"^\s*pid: Scalarset\(N\);", out, re.M)
    assert re.search(r"^\s*level_t: 0\.\.N-1;", out, re.M)  # arithmetic on levels: stays a subrange
    assert _sym1(home, out, tmp_path / "exp") == 174


@pytest.mark.parametrize("original,constants", MODELS, ids=[m.stem for m, _ in MODELS])
def test_mu_accepts_what_the_check_accepts(home, tmp_path, original, constants):
    """Each candidate type declared alone: accepted by our check <=> accepted by ``mu``."""
    if not original.exists():
        pytest.skip(f"{original} absent")
    text = _desymmetrised(original, constants)
    program = parse(text, "m.m")
    refused = set()
    for t in candidates(program):
        why = check(program, t)
        try:
            cmurphi.compile_model(home, rewrite(text, program, [t]), tmp_path / t)
            accepted = True
        except cmurphi.Rejected:
            accepted = False
        # On these models our check and mu agree both ways (ours is conservative in general).
        assert accepted == (why is None), (t, why)
        if why is not None:
            refused.add(t)
    assert refused == REFUSED[original.stem]


def test_ring_rotations_are_left_out_with_the_reason(home, tmp_path):
    out = _exported(RING, tmp_path, "ring")
    assert "no type could be declared a Scalarset" in out
    assert re.search(r"left out g0 \(process symmetry: rotate.*idx is not a scalarset: line 5:\d+: arithmetic", out)
    assert out.endswith(RING)  # the model itself unchanged
    cmurphi.compile_model(home, out, tmp_path / "exp")


@pytest.mark.parametrize("body,reason", [
    ("x := 0;", "assigned to a variable of type t"),
    ("If x < y Then x := y; End;", "operator < on a value of type t"),
    ("Clear x;", "Clear of a value of type t"),
    ("a[0] := true;", "array indexed by the t"),
    ("If x = 1 Then x := y; End;", "compared with a value of another type"),
    ("x := y;", None),
    ("For i: t Do a[i] := x = i; End;", None),
])
def test_check_refuses_what_scalarsets_forbid(body, reason):
    text = f"""Type t: 0..2;
Var x: t; y: t; a: Array [t] Of Boolean;
Rule "r" true ==> Begin {body} End;
"""
    why = check(parse(text, "m.m"), "t")
    if reason is None:
        assert why is None
    else:
        assert why is not None and reason in why, why


def test_not_murphi_is_an_error(tmp_path):
    from detect.export import ExportError

    path = tmp_path / "m.pml"
    path.write_text("active proctype P() { skip }")
    from frontends.promela import load as load_pml

    with pytest.raises(ExportError, match="needs a Murphi model"):
        list(export_chunks(load_pml(path), "murphi"))


def _rumur_states(text: str, workdir: Path) -> int:
    """Rumur's state count with exhaustive symmetry reduction (its canonical form)."""
    import subprocess

    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "m.m").write_text(text)
    subprocess.run(["rumur", "--symmetry-reduction=exhaustive", "--output", "m.c", "m.m"], cwd=workdir,
                   check=True, capture_output=True, timeout=120)
    subprocess.run(["gcc", "-std=c11", "-O1", "-mcx16", "-o", "m", "m.c", "-lpthread", "-latomic"], cwd=workdir,
                   check=True, capture_output=True, timeout=300)
    run = subprocess.run(["./m"], cwd=workdir, capture_output=True, text=True, timeout=300)
    return int(re.search(r"(\d+) states", run.stdout + run.stderr).group(1))


@pytest.mark.parametrize("original,constants", MODELS, ids=[m.stem for m, _ in MODELS])
def test_rumur_reduces_the_export_as_the_original(tmp_path, original, constants):
    import shutil

    if shutil.which("rumur") is None:
        pytest.skip("rumur is not installed (apt-get install rumur)")
    if not original.exists():
        pytest.skip(f"{original} absent")
    scalarset_text = cmurphi.with_constants(original.read_text(), constants) if constants else original.read_text()
    subrange_text = _desymmetrised(original, constants)
    out = _exported(subrange_text, tmp_path, "sub")
    want = _rumur_states(scalarset_text, tmp_path / "orig")
    assert _rumur_states(out, tmp_path / "exp") == want < _rumur_states(subrange_text, tmp_path / "sub")


#: pid-valued data (an owner and the last holder, as MCS's tail pointer) besides pid-indexed
#: arrays; nested Ruleset start states give every owner/last combination
OWNER_LOCK = """Const N: 3;
Type pid: Scalarset(N);
     st_t: Enum { idle, waiting, crit };
Var st: Array [pid] Of st_t;
    owner: pid;
    last: pid;
    busy: Boolean;

Ruleset i: pid Do
  Rule "request" st[i] = idle ==> Begin st[i] := waiting; End;
  Rule "acquire" st[i] = waiting & !busy ==> Begin busy := true; owner := i; st[i] := crit; End;
  Rule "release" st[i] = crit & owner = i ==> Begin busy := false; last := i; st[i] := idle; End;
End;

Ruleset j: pid; k: pid Do
  Startstate Begin
    For i: pid Do st[i] := idle; End;
    busy := false; owner := j; last := k;
  End;
End;

Invariant "mutual exclusion"
  Forall i: pid Do Forall k: pid Do (st[i] = crit & st[k] = crit) -> i = k End End;
"""


def test_pid_valued_data_reduces_as_the_original(home, tmp_path):
    """CMurphi -sym1: the original 21 states, its subrange copy 108, the export 21 again; Rumur
    reads the export and reduces it as the original."""
    import shutil

    subrange_text = re.sub(r"(?i)scalarset\s*\(\s*(\w+)\s*\)", r"0..\1-1", OWNER_LOCK)
    out = _exported(subrange_text, tmp_path, "owner_lock")
    assert re.search(r"^Type pid: Scalarset\(N\);", out, re.M)
    assert (_sym1(home, OWNER_LOCK, tmp_path / "orig"), _sym1(home, subrange_text, tmp_path / "sub"),
            _sym1(home, out, tmp_path / "exp")) == (21, 108, 21)
    if shutil.which("rumur") is not None:
        assert _rumur_states(out, tmp_path / "r_exp") == _rumur_states(OWNER_LOCK, tmp_path / "r_orig")
