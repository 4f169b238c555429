"""C source for one ``SequentialModel``: the successor function, the terminal predicate, the
assertion conditions, state packing and the initial states, in front of ``runtime.c``.

The meaning is ``detect.ir.semantics``'s (and ``detect.statespace.compile``'s): summands in order, locals in
lexicographic order, the guard and the event arguments read the source state, the program
works on a copy; every run-time fault (index out of bounds, division or modulo by zero, a shift
outside 0..64, a value outside a variable's domain, a loop over ``loop_bound`` rounds, a failed
``Assert``, a temporary read before it is assigned) makes the instance a faulting one, with no
successor.  Faults jump out of GCC statement expressions (``({ ... goto F; ... })``), which gcc
and clang both support.

Arithmetic is on ``int64_t``; Python's ints are unbounded, so every operation that could
leave the int64 range sets an overflow flag (``__builtin_*_overflow``) and the exploration then
stops and falls back to Python (``NativeOverflow``).  Constants and domains outside int64 are
refused at generation time (``Unsupported``).
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Optional, Sequence

from detect.ir import (
    Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, SequentialModel, Stmt, Unary,
    WeakFairness, While, left_spine, slot_offsets, state_slots,
)
from detect.ir.walk import names_read
from detect.statespace.native.canon import CANON_C

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

#: with the canonicaliser (``canon.c``, which the Spin verifier of ``detect.export.spin`` shares)
RUNTIME = (Path(__file__).with_name("runtime.c")).read_text().replace("/*@CANON@*/", CANON_C, 1)


class Unsupported(Exception):
    """The model cannot be explored natively (a value outside int64, ...)."""


def _lit(v: int) -> str:
    if not INT64_MIN <= v <= INT64_MAX:
        raise Unsupported(f"constant {v} does not fit in 64 bits")
    if v == INT64_MIN:
        return "(-9223372036854775807LL - 1)"
    return f"{v}LL" if v >= 0 else f"({v}LL)"


def _ident(name: str) -> str:
    return "".join(
        "__" if ch == "_" else ch if ch.isascii() and ch.isalnum() else f"_x{ord(ch):02x}_"
        for ch in name
    )


def _contiguous(domain: Sequence[int]) -> bool:
    return domain[-1] - domain[0] == len(domain) - 1


class _Domains:
    """Distinct domains get one membership/index function each (``dom<n>``)."""

    def __init__(self) -> None:
        self.ids: dict[tuple[int, ...], int] = {}
        self.lines: list[str] = []

    def id(self, domain: tuple[int, ...]) -> int:
        if domain not in self.ids:
            n = len(self.ids)
            self.ids[domain] = n
            for v in (domain[0], domain[-1]):
                _lit(v)
            if _contiguous(domain):
                self.lines.append(
                    f"static inline i64 dom{n}(i64 v) {{ return (v >= {_lit(domain[0])} && "
                    f"v <= {_lit(domain[-1])}) ? (i64)(v - {_lit(domain[0])}) : -1; }}")
            else:
                vals = ", ".join(_lit(v) for v in domain)
                self.lines.append(f"static const i64 DOMV{n}[{len(domain)}] = {{{vals}}};")
                cases = " ".join(f"case {_lit(v)}: return {k};" for k, v in enumerate(domain))
                self.lines.append(f"static inline i64 dom{n}(i64 v) {{ switch (v) {{ {cases} "
                                  f"default: return -1; }} }}")
        return self.ids[domain]

    def inside(self, domain: tuple[int, ...], value: str) -> str:
        """C test that ``value`` (an identifier) lies in ``domain``."""
        if _contiguous(domain):
            return f"({value} >= {_lit(domain[0])} && {value} <= {_lit(domain[-1])})"
        return f"(dom{self.id(domain)}({value}) >= 0)"


class _Gen:
    """Expression and statement translation for one summand (or one condition)."""

    def __init__(self, model: SequentialModel, domains: _Domains, locals_: Sequence[str],
                 fault: str, bound: Optional[str] = None):
        self.model = model
        self.offsets = slot_offsets(model)
        self.variables = {v.name: v for v in model.variables}
        self.locals = set(locals_)
        self.domains = domains
        self.fault = fault
        #: the label a step cut at a bound of ours (``ToolBound``) jumps to (default: ``fault``)
        self.bound = fault if bound is None else bound
        self.counter = 0
        self.temps: set[str] = set()

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def expr(self, e: Expr, st: str) -> str:
        F = self.fault
        if isinstance(e, Const):
            return _lit(e.value)
        if isinstance(e, Name):
            if e.name in self.locals:
                return f"L_{_ident(e.name)}"
            if e.name in self.variables:
                return f"{st}[{self.offsets[e.name]}]"
            self.temps.add(e.name)
            t = _ident(e.name)
            return f"({{ if (!D_{t}) goto {F}; T_{t}; }})"
        if isinstance(e, Index):
            var = self.variables[e.array]
            off, n = self.offsets[e.array], var.length
            if isinstance(e.index, Const):
                k = e.index.value
                if 0 <= k < n:
                    return f"{st}[{off + k}]"
                return f"({{ goto {F}; (i64)0; }})"
            k = self.fresh("_k")
            return (f"({{ i64 {k} = {self.expr(e.index, st)}; if ((u64){k} >= {n}ULL) goto {F}; "
                    f"{st}[{off} + {k}]; }})")
        if isinstance(e, Unary):
            inner = self.expr(e.operand, st)
            if e.op == "-":
                return f"neg_({inner}, &ovf)"
            return f"((i64)!({inner}))"
        if isinstance(e, Binary):
            op = e.op
            if op in ("&&", "||"):
                parts = [f"({self.expr(x, st)} != 0)" for x in left_spine(e)]
                return "((i64)(" + f" {op} ".join(parts) + "))"
            if op in ("+", "-", "*") and isinstance(e.left, Binary) and e.left.op == op:
                parts = left_spine(e)
                fn = {"+": "add_", "-": "sub_", "*": "mul_"}[op]
                acc = self.expr(parts[0], st)
                # Left to right, each partial result checked for overflow.
                for x in parts[1:]:
                    acc = f"{fn}({acc}, {self.expr(x, st)}, &ovf)"
                return acc
            left = self.expr(e.left, st)
            right = self.expr(e.right, st)
            if op in ("==", "!=", "<", "<=", ">", ">="):
                return f"((i64)({left} {op} {right}))"
            if op in ("&", "|", "^"):
                return f"({left} {op} {right})"
            if op == "+":
                return f"add_({left}, {right}, &ovf)"
            if op == "-":
                return f"sub_({left}, {right}, &ovf)"
            if op == "*":
                return f"mul_({left}, {right}, &ovf)"
            a, b = self.fresh("_a"), self.fresh("_b")
            if op in ("/", "%"):
                fn = "div_" if op == "/" else "mod_"
                return (f"({{ i64 {a} = {left}; i64 {b} = {right}; if ({b} == 0) goto {F}; "
                        f"{fn}({a}, {b}, &ovf); }})")
            if op in ("<<", ">>"):
                fn = "shl_" if op == "<<" else "shr_"
                return (f"({{ i64 {a} = {left}; i64 {b} = {right}; if ((u64){b} > 64ULL) goto {F}; "
                        f"{fn}({a}, {b}, &ovf); }})")
            if op in ("min", "max"):
                cmp = "<=" if op == "min" else ">="
                return f"({{ i64 {a} = {left}; i64 {b} = {right}; {a} {cmp} {b} ? {a} : {b}; }})"
            raise Unsupported(f"operator {op!r}")
        if isinstance(e, Ite):
            return (f"(({self.expr(e.cond, st)}) ? ({self.expr(e.then, st)}) : "
                    f"({self.expr(e.else_, st)}))")
        raise Unsupported(f"expression {e!r}")

    def program(self, stmts: Sequence[Stmt], indent: str, out: list[str]) -> None:
        F = self.fault
        for stmt in stmts:
            if isinstance(stmt, Assign):
                target = stmt.target
                value = self.expr(stmt.value, "t")
                if isinstance(target, Index):
                    var = self.variables[target.array]
                    off, n = self.offsets[target.array], var.length
                    v, i = self.fresh("_v"), self.fresh("_i")
                    out.append(f"{indent}{{ i64 {v} = {value}; i64 {i} = {self.expr(target.index, 't')};")
                    out.append(f"{indent}  if ((u64){i} >= {n}ULL) goto {F};")
                    out.append(f"{indent}  if (!{self.domains.inside(var.domain, v)}) goto {F};")
                    out.append(f"{indent}  t[{off} + {i}] = {v}; }}")
                elif target.name in self.variables:
                    var = self.variables[target.name]
                    v = self.fresh("_v")
                    out.append(f"{indent}{{ i64 {v} = {value}; "
                               f"if (!{self.domains.inside(var.domain, v)}) goto {F}; "
                               f"t[{self.offsets[target.name]}] = {v}; }}")
                elif target.name in self.locals:
                    out.append(f"{indent}L_{_ident(target.name)} = {value};")
                else:
                    self.temps.add(target.name)
                    t = _ident(target.name)
                    out.append(f"{indent}T_{t} = {value}; D_{t} = 1;")
            elif isinstance(stmt, If):
                out.append(f"{indent}if ({self.expr(stmt.cond, 't')}) {{")
                self.program(stmt.then, indent + "  ", out)
                out.append(f"{indent}}} else {{")
                self.program(stmt.else_, indent + "  ", out)
                out.append(f"{indent}}}")
            elif isinstance(stmt, While):
                r = self.fresh("_r")
                out.append(f"{indent}{{ i64 {r} = 0;")
                out.append(f"{indent}  while ({self.expr(stmt.cond, 't')}) {{")
                past = self.bound if self.model.loop_tool_bound is not None else F
                out.append(f"{indent}    if (++{r} > {self.model.loop_bound}LL) goto {past};")
                self.program(stmt.body, indent + "    ", out)
                out.append(f"{indent}  }}")
                out.append(f"{indent}}}")
            elif isinstance(stmt, Assert):
                to = F if stmt.bound is None else self.bound
                out.append(f"{indent}if (!({self.expr(stmt.cond, 't')})) goto {to};")
            else:
                raise Unsupported(f"statement {stmt!r}")


_HELPERS = r"""
static inline i64 add_(i64 a, i64 b, int *o) { i64 r; if (__builtin_add_overflow(a, b, &r)) *o = 1; return r; }
static inline i64 sub_(i64 a, i64 b, int *o) { i64 r; if (__builtin_sub_overflow(a, b, &r)) *o = 1; return r; }
static inline i64 mul_(i64 a, i64 b, int *o) { i64 r; if (__builtin_mul_overflow(a, b, &r)) *o = 1; return r; }
static inline i64 neg_(i64 a, int *o) { if (a == INT64_MIN) { *o = 1; return 0; } return -a; }
/* C's truncating division and remainder (semantics.c_div / c_mod); b != 0 here. */
static inline i64 div_(i64 a, i64 b, int *o) { if (b == -1) return neg_(a, o); return a / b; }
static inline i64 mod_(i64 a, i64 b, int *o) { (void)o; if (b == -1) return 0; return a % b; }
/* Python's a << b and a >> b for 0 <= b <= 64. */
static inline i64 shl_(i64 a, i64 b, int *o) {
    if (a == 0) return 0;
    if (b >= 63) { if (b == 63 && a == -1) return INT64_MIN; *o = 1; return 0; }
    i64 r; if (__builtin_mul_overflow(a, (i64)1 << b, &r)) *o = 1; return r;
}
static inline i64 shr_(i64 a, i64 b, int *o) { (void)o; if (b >= 63) return a < 0 ? -1 : 0; return a >> b; }
"""


def _layout(slots) -> tuple[list[tuple[int, int, int]], int, int]:
    """(word, shift, bits) per slot, slot after slot with no gaps (a slot may straddle two
    words); the word count and the byte count (the bytes a stored state takes: ``runtime.c``
    keeps the first ``NBYTES`` bytes of the little-endian words, the rest being zero)."""
    out, offset = [], 0
    for slot in slots:
        bits = (len(slot.domain) - 1).bit_length()
        if bits > 64:
            raise Unsupported("a domain too large to pack")
        out.append((offset // 64, offset % 64, bits))
        offset += bits
    return out, max(1, -(-offset // 64)), max(1, -(-offset // 8))


def c_source(model: SequentialModel) -> str:
    """The whole C translation unit for ``model``.

    Why one function: it writes one C translation unit top to bottom, in the order C needs its declarations; each part is a short, linear block.
    """
    slots = state_slots(model)
    nslots = len(slots)
    domains = _Domains()
    layout, nwords, nbytes = _layout(slots)
    conditions = [(i, a) for i, a in enumerate(model.assertions)
                  if a.condition is not None and a.kind in ("reaches", "invariant", "acceptance")]
    ncond = len(model.assertions)
    want = [-1] * ncond
    for i, a in conditions:
        # an acceptance condition is read by the cycle search only (nx_ndfs_*), never by the BFS
        want[i] = 1 if a.kind == "reaches" else 0 if a.kind == "invariant" else -1

    pre = ["#include <stdint.h>", "#include <string.h>", "typedef int64_t i64;",
           "typedef uint64_t u64;",
           f"#define NSLOTS {nslots}", f"#define NWORDS {nwords}", f"#define NBYTES {nbytes}",
           f"#define NCOND {ncond}",
           f"#define STUTTER_DEADLOCK {int(model.stutter_deadlock)}",
           f"#define NINIT_SLOTS {nslots}"]
    # initial values per slot
    inits = [allowed for v in model.variables for allowed in v.init]
    flat, starts = [], []
    for allowed in inits:
        starts.append(len(flat))
        flat.extend(allowed)
    pre.append(f"static const i64 INIT_VALS[{max(1, len(flat))}] = "
               f"{{{', '.join(_lit(v) for v in flat) or '0'}}};")
    pre.append(f"static const int INIT_START[{max(1, nslots)}] = {{{', '.join(map(str, starts)) or '0'}}};")
    pre.append(f"static const int INIT_COUNT[{max(1, nslots)}] = "
               f"{{{', '.join(str(len(a)) for a in inits) or '1'}}};")
    pre.append("static inline i64 init_value(int k, unsigned pos) { return INIT_VALS[INIT_START[k] + pos]; }")
    if model.initial is not None:
        # The initial states listed one by one (``SequentialModel.initial``): nx_init walks
        # these rows instead of the product of the per-slot sets.
        rows = [_lit(x) for state in model.initial for x in state]
        pre.append(f"#define NINIT_STATES {len(model.initial)}")
        pre.append(f"static const i64 INIT_STATES[{max(1, len(rows))}] = {{{', '.join(rows) or '0'}}};")
    pre.append(f"static const int COND_WANT[{max(1, ncond)}] = {{{', '.join(map(str, want)) or '-1'}}};")

    body: list[str] = []
    # packing
    pk = ["static void pack(const i64 *t, u64 *w) {", "  memset(w, 0, NWORDS * sizeof(u64));"]
    up = ["static void unpack(const u64 *w, i64 *t) {"]
    for k, (slot, (word, shift, bits)) in enumerate(zip(slots, layout)):
        d = slot.domain
        if bits == 0:
            up.append(f"  t[{k}] = {_lit(d[0])};")
            continue
        mask = (1 << bits) - 1
        if _contiguous(d):
            code = f"(u64)(t[{k}] - {_lit(d[0])})"
            value = f"{_lit(d[0])} + (i64)({{}})"
        else:
            n = domains.id(d)
            code = f"(u64)dom{n}(t[{k}])"
            value = f"DOMV{n}[{{}}]"
        pk.append(f"  w[{word}] |= {code} << {shift};")
        field = f"w[{word}] >> {shift}"
        if shift + bits > 64:  # straddles: the high part starts the next word
            pk.append(f"  w[{word + 1}] |= {code} >> {64 - shift};")
            field = f"{field} | w[{word + 1}] << {64 - shift}"
        up.append(f"  t[{k}] = {value.format(f'({field}) & {mask}ULL')};")
    pk.append("}")
    up.append("}")
    # Position of value v in slot k's domain (v is in the domain).
    si = ["static i64 slot_index(int k, i64 v) {", "  switch (k) {"]
    for k, slot in enumerate(slots):
        d = slot.domain
        if _contiguous(d):
            si.append(f"  case {k}: return v - {_lit(d[0])};")
        else:
            si.append(f"  case {k}: return dom{domains.id(d)}(v);")
    si += ["  default: return 0;", "  }", "}"]
    up += si

    # successors
    succ = ["static int model_successors(const i64 *s, Worker *c) {",
            "  int ovf = 0;", f"  i64 t[{max(1, nslots)}];", "  (void)t;"]
    for si, summand in enumerate(model.summands):
        fault = f"F{si}"
        gen = _Gen(model, domains, [loc.name for loc in summand.locals], fault, f"K{si}")
        inner: list[str] = []
        ind = "  " + "  " * len(summand.locals)
        guard = gen.expr(summand.guard, "s")
        args = [gen.expr(a, "s") for a in summand.event.args]
        prog: list[str] = []
        gen.program(summand.program, ind + "  ", prog)
        inner.append(f"{ind}{{")
        # (the weakly fair search reads which summand made each successor, or faulted)
        inner.append(f"{ind}  c->summand = {si};")
        for name in sorted(gen.temps):
            t = _ident(name)
            inner.append(f"{ind}  i64 T_{t} = 0; int D_{t} = 0; (void)T_{t}; (void)D_{t};")
        for loc in summand.locals:
            inner.append(f"{ind}  i64 L_{_ident(loc.name)} = B_{_ident(loc.name)};")
        inner.append(f"{ind}  if (!({guard})) goto N{si};")
        for a in args:
            inner.append(f"{ind}  (void)({a});")
        inner.append(f"{ind}  memcpy(t, s, sizeof(i64) * NSLOTS);")
        inner += prog
        inner.append(f"{ind}  if (emit(c, t)) return -1;")
        inner.append(f"{ind}  goto N{si};")
        # c->fault's bits: 1 a fault of the model, 2 a step cut at a bound of ours (a bound
        # state has only 2); either is an enabled step, for deadlocks and fairness alike
        inner.append(f"{ind}{fault}: c->fault |= 1; c->fault_procs |= FAIR_FIRST_BIT({si}); goto N{si};")
        inner.append(f"{ind}K{si}: c->fault |= 2; c->fault_procs |= FAIR_FIRST_BIT({si});")
        inner.append(f"{ind}}}")
        inner.append(f"{ind}N{si}: ;")
        loops: list[str] = []
        close: list[str] = []
        for depth, loc in enumerate(summand.locals):
            li = "  " + "  " * depth
            b = _ident(loc.name)
            d = loc.domain
            if _contiguous(d):
                loops.append(f"{li}for (i64 B_{b} = {_lit(d[0])}; B_{b} <= {_lit(d[-1])}; B_{b}++) {{")
            else:
                arr = f"LD{si}_{depth}"
                pre.append(f"static const i64 {arr}[{len(d)}] = {{{', '.join(_lit(v) for v in d)}}};")
                loops.append(f"{li}for (int J_{b} = 0; J_{b} < {len(d)}; J_{b}++) {{ "
                             f"i64 B_{b} = {arr}[J_{b}];")
            close.insert(0, f"{li}}}")
        succ += loops + inner + close
    succ.append("  if (ovf) { c->ovf = 1; return -1; }")
    succ.append("  return 0;")
    succ.append("}")

    def condition(name: str, e: Expr | None, cond_index: int | None = None) -> list[str]:
        gen = _Gen(model, domains, (), "F")
        src = gen.expr(e, "s") if e is not None else "0"
        lines = [f"static int {name}(const i64 *s, int *ovfp) {{", "  int ovf = 0;"]
        for temp in sorted(gen.temps):
            t = _ident(temp)
            lines.append(f"  i64 T_{t} = 0; int D_{t} = 0; (void)T_{t}; (void)D_{t};")
        lines.append(f"  int r = ({src}) != 0;")
        # An overflow makes the value unreliable: the caller stops the exploration.
        lines.append("  if (ovf) *ovfp = 1;")
        lines.append("  return r;")
        lines.append("F: if (ovf) *ovfp = 1;")
        lines.append("  return 0;")
        lines.append("}")
        return lines

    conds: list[str] = []
    conds += condition("model_terminal_", model.terminal)
    native = [1] * max(1, ncond)
    for i, a in conditions:
        try:
            conds += condition(f"cond_{i}", a.condition)
        except Unsupported:
            if a.kind != "acceptance":
                raise
            # only the cycle search reads it: that search refuses to run (nx_cond_native), the
            # exploration does not need it
            native[i] = 0
            conds += condition(f"cond_{i}", None)
    conds.append(f"static const int COND_NATIVE[{max(1, ncond)}] = {{{', '.join(map(str, native))}}};")
    conds.append("int nx_cond_native(int i) { return COND_NATIVE[i]; }")
    conds.append("static int model_terminal(const i64 *s, int *o) { return model_terminal_(s, o); }")
    conds.append("static int model_condition(int i, const i64 *s, int *o) {")
    conds.append("  switch (i) {")
    for i, _ in conditions:
        conds.append(f"  case {i}: return cond_{i}(s, o);")
    conds.append("  default: return 0;")
    conds.append("  }")
    conds.append("}")

    try:
        fair = _fairness(model)
        fair_conds = _fairness_predicates(fair, condition)
    except Unsupported:  # the weakly fair search does not run natively; the rest does
        fair = None
        fair_conds = _fairness_predicates(None, condition)
    pre += _fairness_tables(model, fair)
    conds += fair_conds
    parts = pre + [_HELPERS] + domains.lines + [RUNTIME] + pk + up + succ + conds
    return "\n".join(parts) + "\n"


#: the weakly fair search's predicates (``fair_pred(k, ...)``), in ``WeakFairness``'s order
_FAIR_PREDICATES = ("system_turn", "counted", "atomic_free", "timeout")


def _fairness(model: SequentialModel) -> WeakFairness | None:
    """The model's weak-fairness facts where C can use them: at most 62 processes, each
    summand's owners known, and the predicates reading only state variables (a model the
    detection narrowed may have lost one; a name C does not know would read as a fault)."""
    facts = dict(model.annotations).get("weak_fairness")
    if not isinstance(facts, WeakFairness) or not 0 < len(facts.processes) <= 62:
        return None
    known = {v.name for v in model.variables}
    if any(not names_read(getattr(facts, k)) <= known for k in _FAIR_PREDICATES):
        return None
    return facts


def _fairness_tables(model: SequentialModel, facts: WeakFairness | None) -> list[str]:
    """``FAIR_N`` (0: no weakly fair search), ``FAIR_NP``, and per summand the processes
    taking part (``FAIR_OWNERS``, bits by place in ``WeakFairness.processes``) and the bit
    of the first of them (``FAIR_FIRST_BIT``: the one pan counts as able to move), as
    ``cycles.served_by_steps`` reads them."""
    if facts is None:
        return ["#define FAIR_N 0", "#define FAIR_NP 0", "#define FAIR_FIRST_BIT(si) 0ULL",
                "#define FAIR_OWNERS(si) 0ULL"]
    index = {name: k for k, name in enumerate(facts.processes)}
    owners, first = [], []
    for s in model.summands:
        who = [index[o] for o in s.owners if o in index]
        owners.append(sum(1 << k for k in set(who)))
        first.append(1 << who[0] if who else 0)
    n = max(1, len(model.summands))
    return [f"#define FAIR_N {len(facts.processes)}", f"#define FAIR_NP {int(facts.non_progress)}",
            f"static const u64 FAIR_OWNERS_[{n}] = {{{', '.join(f'{x}ULL' for x in owners) or '0'}}};",
            f"static const u64 FAIR_FIRST_[{n}] = {{{', '.join(f'{x}ULL' for x in first) or '0'}}};",
            "#define FAIR_FIRST_BIT(si) FAIR_FIRST_[si]", "#define FAIR_OWNERS(si) FAIR_OWNERS_[si]"]


def _fairness_predicates(facts: WeakFairness | None, condition) -> list[str]:
    """``fair_pred(k, s, ovf)``: ``_FAIR_PREDICATES[k]`` of ``facts`` on state ``s`` (a fault:
    false, as ``cycles._predicates``; no facts: always false, never called)."""
    lines: list[str] = []
    for k, name in enumerate(_FAIR_PREDICATES):
        lines += condition(f"fair_pred_{k}", getattr(facts, name) if facts is not None else None)
    lines.append("static int fair_pred(int k, const i64 *s, int *o) {")
    lines.append("  switch (k) {")
    for k in range(len(_FAIR_PREDICATES)):
        lines.append(f"  case {k}: return fair_pred_{k}(s, o);")
    lines.append("  default: return 0;")
    lines.append("  }")
    lines.append("}")
    return lines
