"""Random, type-correct CMurphi models for differential testing against CMurphi.

``generate(seed)`` returns the text of one model that CMurphi's ``mu`` accepts and our front
end is meant to accept too.  It covers every construct the front end reads: ``Const``,
subranges, ``Enum``, ``boolean``, ``Scalarset``, ``Union`` of a scalarset and an enum and of two
scalarsets (eadash.m's ``Proc``), a ``Multiset`` of records (``MultisetAdd``, ``MultisetRemove``
inside ``Choose``, ``MultisetRemovePred``, ``MultisetCount``), named ``Array`` and ``Record`` types (arrays
of records, arrays of arrays), ``Var``; nested ``Ruleset``s (scalarset, enum and integer
ranges, several quantifiers), ``Rule`` with and without guards and with local ``Var``s,
``Startstate`` (also inside a ruleset), ``Invariant`` (also inside a ruleset); statements
``:=`` (simple values and whole array / record copies), nested ``If``/``Elsif``/``Else``,
``Switch``, ``For`` (over types and ``:= a To b By c``), ``While`` (also past 256 and 1000
rounds), rules that change nothing (deadlocks by self-loops), ``Alias ... Do`` around rules,
procedure calls (``Var``
and value parameters, locals, early ``Return``), ``Alias`` (of designators and of
expressions), ``Clear``, ``Undefine``, ``Error``, ``Assert``, ``Put``; records whose last field has no
``;`` and rules without ``Begin``; expressions with ``+ - * / %``,
comparisons, ``& | ! ->``, ``?:``, ``Forall``/``Exists``, ``IsUndefined`` and function calls
(locals, early ``Return``).

It stays within CMurphi's type rules (scalarsets and enums are compared with ``=``/``!=``
only and index only arrays over their own type; ``Clear`` never touches a scalarset; value
parameters are read-only; ``/`` and ``%`` divide by positive constants) and within what we
refuse deliberately (a function changes no state).  Start states inside a ruleset over pid
need not be a product of per-variable values, and there may be two ``Startstate``s.  The variables are drawn until the product of their domains (undefined included)
reaches a budget, so the state space stays small.  Most integer assignments are reduced
into range, but some are not, and some variables start undefined, so some models fault:
verdicts are compared then, counts otherwise.

``generate_multiset(seed)`` returns a model of another shape: a network that is a
``Multiset`` of messages naming ``Scalarset`` processes (newlist6.m, newcache3.m), whose
scalarset group is a symmetry of the unsorted reading, for comparing ``explore --reduce
exact`` with CMurphi's ``-sym1`` (with and without ``-nomultiset``).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Ty:
    kind: str                      # int, bool, enum, scalar, array, record
    name: str = ""
    lo: int = 0
    hi: int = 0
    values: tuple[str, ...] = ()   # enum constants
    index: Optional["Ty"] = None   # array
    elem: Optional["Ty"] = None    # array
    fields: tuple[tuple[str, "Ty"], ...] = ()  # record
    members: tuple["Ty", ...] = ()  # union

    @property
    def simple(self) -> bool:
        return self.kind in ("int", "bool", "enum", "scalar", "union")

    def size(self) -> int:
        """Values a variable of this type can hold, undefined included."""
        if self.simple:
            return self.count() + 1
        if self.kind == "array":
            return self.elem.size() ** self.index.count()
        if self.kind == "multiset":  # bags of at most hi elements
            return (self.elem.size() + 1) ** self.hi
        n = 1
        for _, f in self.fields:
            n *= f.size()
        return n

    def count(self) -> int:
        """Values of an index type."""
        if self.kind == "int":
            return self.hi - self.lo + 1
        if self.kind == "bool":
            return 2
        if self.kind == "enum":
            return len(self.values)
        if self.kind == "union":
            return sum(m.count() for m in self.members)
        return self.hi + 1

    def has_scalarset(self) -> bool:
        if self.kind in ("scalar", "union"):
            return True
        if self.kind in ("array", "multiset"):
            return (self.index is not None and self.index.has_scalarset()) or self.elem.has_scalarset()
        if self.kind == "record":
            return any(f.has_scalarset() for _, f in self.fields)
        return False

    def compatible(self, other: "Ty") -> bool:
        """A value of ``other`` may be assigned to / compared with this type."""
        if self.kind == "int":
            return other.kind == "int"
        if other.kind == "union" and self.kind != "union":
            # Used as ``u.compatible(t)``: a value of type u (a member) where a union t is
            # expected; never a union's value where a member is.
            return any(self.compatible(m) for m in other.members)
        return self.kind == other.kind and (self.kind == "bool" or self.name == other.name)


BOOL = Ty("bool", "boolean")
INT = Ty("int", "integer", 0, 0)  # "any integer" when asking for an expression


@dataclass
class Sym:
    name: str
    ty: Ty
    writable: bool
    #: an integer-valued name whose value is a known constant range (loop and ruleset
    #: variables): used as array subscripts of integer-indexed arrays
    const_range: Optional[tuple[int, int]] = None


@dataclass
class Routine:
    name: str
    kind: str                      # procedure, function
    params: list[tuple[str, Ty, bool]]   # name, type, by reference
    result: Optional[Ty] = None


@dataclass
class Ctx:
    syms: list[Sym]
    in_function: bool = False
    routines: list[Routine] = field(default_factory=list)
    depth: int = 0
    loops: int = 0
    chosen: list = field(default_factory=list)  # Choose indices in scope


class Gen:
    def __init__(self, seed: int, budget: int = 6_000, rumur: bool = False):
        self.r = random.Random(seed)
        self.budget = budget
        self.counter = 0
        #: also Rumur's syntax (no ";" after declarations, "&&", "||", "==") and operators
        #: (bitwise "&", "|", "^", "~", shifts); off, the draws are those of CMurphi's models
        self.rumur = rumur

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    # ------------------------------------------------------------------ types and vars
    def types(self) -> None:
        r = self.r
        k = r.choice([1, 2, 3])
        self.consts = [("K", k), ("N", r.choice([2, 2, 3])), ("H", r.choice([1, 2]))]
        n = self.consts[1][1]
        self.val = Ty("int", "val_t", 0, k)
        self.small = Ty("int", "small_t", 0, 1)
        self.color = Ty("enum", "color", values=tuple(r.sample(["red", "green", "blue", "cyan"], r.choice([2, 3]))))
        self.pid = Ty("scalar", "pid", 0, n - 1)
        self.rec = Ty("record", "rec_t", fields=(("f", self.val), ("g", BOOL), ("h", self.color)))
        self.arr = Ty("array", "arr_t", index=self.pid, elem=self.val)
        self.barr = Ty("array", "barr_t", index=self.small, elem=BOOL)
        self.carr = Ty("array", "carr_t", index=self.color, elem=self.small)
        self.recs = Ty("array", "recs_t", index=self.small, elem=self.rec)
        self.grid = Ty("array", "grid_t", index=self.small, elem=Ty("array", "", index=self.small, elem=self.small))
        self.parr = Ty("array", "parr_t", index=self.small, elem=self.pid)
        # A Union of a scalarset and an enum (the list and cache examples of CMurphi).
        self.ut = Ty("union", "ut_t", members=(self.pid, self.color))
        self.uarr = Ty("array", "uarr_t", index=self.ut, elem=self.small)
        # A Union of two scalarsets (eadash.m's Proc: Union {Home, Remote}): each member is
        # permuted on its own.  Declared only where a variable uses it (``model``), with a
        # variable of the second scalarset then (CMurphi's C++ needs one).
        self.hid = Ty("scalar", "hid", 0, self.consts[2][1] - 1)
        self.pu = Ty("union", "pu_t", members=(self.pid, self.hid))
        self.puarr = Ty("array", "puarr_t", index=self.pu, elem=self.small)
        self.two = False
        # A multiset of records (the network of the cache examples).
        self.mst = Ty("multiset", "ms_t", 0, r.choice([2, 3]), elem=Ty("record", "msg_t", fields=(
            ("f", self.val), ("h", self.color))))
        self.named = [self.val, self.small, self.color, self.pid, self.rec, self.arr, self.barr, self.carr,
                      self.recs, self.grid, self.parr, self.ut, self.uarr, self.mst.elem, self.mst,
                      self.hid, self.pu, self.puarr]
        if self.rumur:  # Rumur has neither unions nor multisets
            self.named = [t for t in self.named if t not in (self.ut, self.uarr, self.mst, self.pu, self.puarr)]

    def type_text(self, t: Ty) -> str:
        if t.name and t.name not in ("",):
            return t.name
        return f"Array [{self.type_text(t.index)}] Of {self.type_text(t.elem)}"

    def decl_text(self, t: Ty) -> str:
        if t.kind == "int":
            return f"{t.lo}..{'K' if t.name == 'val_t' else t.hi}"
        if t.kind == "enum":
            return "Enum { " + ", ".join(t.values) + " }"
        if t.kind == "scalar":
            return "Scalarset(N)" if t == self.pid else "Scalarset(H)"
        if t.kind == "union":
            return "Union {" + ", ".join(m.name for m in t.members) + "}"
        if t.kind == "multiset":
            return f"Multiset [{t.hi}] Of {self.type_text(t.elem)}"
        if t.kind == "array":
            return f"Array [{self.type_text(t.index)}] Of {self.type_text(t.elem)}"
        text = "Record " + " ".join(f"{n}: {self.type_text(f)};" for n, f in t.fields)
        # CMurphi separates fields by ";": the last one needs none.
        return (text[:-1] if self.chance(0.4) else text) + " End"

    def variables(self) -> list[Sym]:
        pool = [("x", self.val), ("y", self.val), ("b", BOOL), ("c", self.color), ("p", self.pid),
                ("a", self.arr), ("fl", self.barr), ("cm", self.carr), ("r", self.rec), ("rs", self.recs),
                ("g", self.grid), ("q", self.parr), ("z", self.small), ("a2", self.arr), ("r2", self.rec),
                ("u", self.ut), ("ua", self.uarr), ("ms", self.mst), ("w", self.pu), ("wa", self.puarr)]
        self.r.shuffle(pool)
        # Always a scalarset variable: CMurphi 5.4's C++ for a type over a scalarset that no
        # variable uses does not compile (PermSet lacks the scalarset's members).
        pool.remove(("p", self.pid))
        pool.insert(0, ("p", self.pid))
        if self.rumur:
            pool = [(n, t) for n, t in pool if t not in (self.ut, self.uarr, self.mst, self.pu, self.puarr)]
        elif self.chance(0.4):  # a multiset is too large to be drawn often otherwise
            pool.remove(("ms", self.mst))
            pool.insert(1, ("ms", self.mst))
        chosen, product = [], 1
        for name, t in pool:
            if product * t.size() > self.budget and len(chosen) >= 2:
                continue
            chosen.append(Sym(name, t, True))
            product *= t.size()
        if any(s.ty in (self.pu, self.puarr) for s in chosen):
            self.two = True
            chosen.append(Sym("hd", self.hid, True))
        return chosen

    # ------------------------------------------------------------------ designators
    def index_expr(self, t: Ty, ctx: Ctx) -> str:
        """A subscript of index type ``t``."""
        r = self.r
        if t.kind == "int":
            named = [s for s in ctx.syms if s.const_range and t.lo <= s.const_range[0] and s.const_range[1] <= t.hi]
            if named and self.chance(0.4):
                return r.choice(named).name
            if self.chance(0.12) and ctx.depth < 2:
                return self.int_expr(ctx, 1)  # may be out of range: an error in both tools
            return str(r.randint(t.lo, t.hi))
        return self.expr(t, ctx, 1 if ctx.depth < 3 else 0)

    def paths(self, sym: Sym, ctx: Ctx, want) -> list[tuple[str, Ty]]:
        """Designators under ``sym`` whose type satisfies ``want`` (subscripts generated)."""
        out = []

        def walk(text: str, t: Ty):
            if want(t):
                out.append((text, t))
            if t.kind == "array":
                try:
                    index = self.index_expr(t.index, ctx)
                except NoValue:
                    return
                walk(f"{text}[{index}]", t.elem)
            elif t.kind == "record":
                for n, f in t.fields:
                    walk(f"{text}.{n}", f)
        walk(sym.name, sym.ty)
        return out

    def designator(self, ctx: Ctx, want, writable: bool) -> Optional[tuple[str, Ty]]:
        syms = [s for s in ctx.syms if (s.writable or not writable)]
        self.r.shuffle(syms)
        for s in syms:
            if not s.ty.simple and not self._contains(s.ty, want):
                continue
            if s.ty.simple and not want(s.ty):
                continue
            options = self.paths(s, ctx, want)
            if options:
                return self.r.choice(options)
        return None

    def _contains(self, t: Ty, want) -> bool:
        if want(t):
            return True
        if t.kind == "array":
            return self._contains(t.elem, want)
        if t.kind == "record":
            return any(self._contains(f, want) for _, f in t.fields)
        return False

    # ------------------------------------------------------------------ expressions
    def first(self, options) -> str:
        """The first of ``options`` (in random order) that finds what it needs."""
        options = list(options)
        self.r.shuffle(options)
        for make in options:
            try:
                return make()
            except NoValue:
                continue
        raise NoValue(INT)

    def expr(self, t: Ty, ctx: Ctx, d: int) -> str:
        if t.kind == "int":
            return self.int_expr(ctx, d)
        if t.kind == "bool":
            return self.bool_expr(ctx, d)
        r = self.r
        ctx.depth += 1
        try:
            leaf = self.designator(ctx, lambda u: u.compatible(t) and u.simple, False)
            options = []
            if t.kind == "enum":
                options.append(lambda: r.choice(t.values))
            if t == self.ut:
                options.append(lambda: r.choice(self.color.values))
            if leaf:
                options += [lambda: leaf[0]] * 3
            if d > 0:
                options.append(lambda: self.conditional(t, ctx, d - 1))
                fn = [f for f in ctx.routines if f.kind == "function" and f.result.compatible(t)]
                if fn:
                    options.append(lambda: self.call(r.choice(fn), ctx, d - 1))
            if not options:
                raise NoValue(t)
            return self.first(options)
        finally:
            ctx.depth -= 1

    def conditional(self, t: Ty, ctx: Ctx, d: int) -> str:
        """``c ? x : y`` of enum or scalarset type ``t`` whose branches are both constants or
        both designators: CMurphi 5.4's C++ for ``c ? red : x`` mixes ``int`` and its enum
        class, which g++ refuses (``+ 0`` / ``& true`` do that for integers and booleans)."""
        cond = self.bool_expr(ctx, d)
        if t.kind == "enum" and self.chance(0.5):
            return f"({cond} ? {self.r.choice(t.values)} : {self.r.choice(t.values)})"
        same = (lambda u: u == t) if t.kind == "union" else (lambda u: u.compatible(t) and u.simple)
        a = self.designator(ctx, same, False)
        b = self.designator(ctx, same, False)
        if a is None or b is None:
            raise NoValue(t)
        return f"({cond} ? {a[0]} : {b[0]})"

    def int_expr(self, ctx: Ctx, d: int) -> str:
        r = self.r
        ctx.depth += 1
        try:
            leaf = self.designator(ctx, lambda u: u.kind == "int", False)
            options = [lambda: str(r.randint(0, 3)), lambda: r.choice(["K", "N"])]
            if leaf:
                options += [lambda: leaf[0]] * 4
            if d > 0:
                sub = lambda: self.int_expr(ctx, d - 1)
                options += [
                    lambda: f"({sub()} + {sub()})",
                    lambda: f"({sub()} - {sub()})",
                    lambda: f"({sub()} * {sub()})",
                    lambda: f"({sub()} % {r.randint(1, 3)})",
                    lambda: f"({sub()} / {r.randint(1, 3)})",
                    lambda: f"(- {sub()})",
                    lambda: f"({self.bool_expr(ctx, d - 1)} ? ({sub()} + 0) : ({sub()} + 0))",
                ]
                fn = [f for f in ctx.routines if f.kind == "function" and f.result.kind == "int"]
                if fn:
                    options.append(lambda: self.call(r.choice(fn), ctx, d - 1))
                if not ctx.in_function and any(x.ty.kind == "multiset" for x in ctx.syms):
                    options.append(lambda: self.multiset_count(ctx, d - 1))
                if self.rumur:
                    options += [
                        # ("&" and "|" between numbers too, but Rumur 2022.08.20 refuses them
                        # on a typedef's values: "left hand side of expression is not a boolean")
                        lambda: f"({sub()} ^ {sub()})",
                        lambda: f"(~ {sub()})",
                        lambda: f"({sub()} {r.choice(['<<', '>>'])} {r.randint(-2, 2)})",
                    ]
            return self.first(options)
        finally:
            ctx.depth -= 1

    def multiset_count(self, ctx: Ctx, d: int) -> str:
        k = self.fresh("j")
        ctx.syms.append(Sym(f"ms[{k}]", self.mst.elem, False))
        try:
            return f"MultisetCount({k}: ms, {self.bool_expr(ctx, d)})"
        finally:
            ctx.syms.pop()

    def bool_expr(self, ctx: Ctx, d: int) -> str:
        r = self.r
        ctx.depth += 1
        try:
            leaf = self.designator(ctx, lambda u: u.kind == "bool", False)
            options = [lambda: r.choice(["true", "false"])]
            if leaf:
                options += [lambda: leaf[0]] * 2
            cmp = lambda: f"({self.int_expr(ctx, max(d - 1, 0))} {r.choice(['<', '<=', '=', '!=', '>', '>='])} {self.int_expr(ctx, max(d - 1, 0))})"
            options += [cmp] * 3
            for t in (self.color, self.pid) + ((self.hid,) if self.two else ()):
                if self.designator(ctx, lambda u, t=t: u.compatible(t) and u.simple, False):
                    options.append(lambda t=t: f"({self.expr(t, ctx, max(d - 1, 0))} {r.choice(['=', '!='])} {self.expr(t, ctx, max(d - 1, 0))})")
            for ut in (self.ut, self.pu):
                union = self.designator(ctx, lambda u, ut=ut: u == ut, False)
                if union:
                    # A union compares with a union or with a value of one of its members.
                    options.append(lambda union=union, ut=ut:
                                   f"({union[0]} {r.choice(['=', '!='])} {self.expr(ut, ctx, max(d - 1, 0))})")
            undef = self.designator(ctx, lambda u: u.simple, True)
            if undef and not ctx.in_function:
                options.append(lambda: f"IsUndefined({undef[0]})")
            if d > 0:
                sub = lambda: self.bool_expr(ctx, d - 1)
                options += [
                    lambda: f"({sub()} & {sub()})",
                    lambda: f"({sub()} | {sub()})",
                    lambda: f"!({sub()})",
                    lambda: f"({sub()} -> {sub()})",
                    lambda: f"({sub()} ? ({sub()} & true) : ({sub()} & true))",
                    lambda: f"({sub()} = {sub()})",
                    lambda: self.quantified(ctx, d - 1),
                ]
                if self.rumur:
                    options += [
                        lambda: f"({sub()} {r.choice(['&&', '||'])} {sub()})",
                        lambda: f"({self.int_expr(ctx, d - 1)} == {self.int_expr(ctx, d - 1)})",
                    ]
                fn = [f for f in ctx.routines if f.kind == "function" and f.result.kind == "bool"]
                if fn:
                    options.append(lambda: self.call(r.choice(fn), ctx, d - 1))
            return self.first(options)
        finally:
            ctx.depth -= 1

    def quantifier(self, ctx: Ctx, ruleset: bool = False) -> tuple[str, Sym]:
        """A quantifier; a ruleset's ranges over types only (CMurphi 5.4 generates C++ that
        does not compile for ``Ruleset k := 0 To 1``)."""
        name = self.fresh("k")
        choice = self.r.choice(["pid", "color", "small", "range"] + ([] if self.rumur else ["union"])
                               + (["hid"] if self.two else []) + (["pu"] if self.two and not self.rumur else []))
        if choice == "union":
            return f"{name}: ut_t", Sym(name, self.ut, False)
        if choice in ("hid", "pu"):
            t = self.hid if choice == "hid" else self.pu
            return f"{name}: {t.name}", Sym(name, t, False)
        if choice == "pid":
            return f"{name}: pid", Sym(name, self.pid, False)
        if choice == "color":
            return f"{name}: color", Sym(name, self.color, False)
        if choice == "small":
            return f"{name}: small_t", Sym(name, self.small, False, (0, 1))
        lo = self.r.randint(0, 1)
        hi = self.r.randint(lo, 2)
        text = f"{name}: {lo}..{hi}" if ruleset or self.chance(0.3) else f"{name} := {lo} To {hi}"
        return text, Sym(name, Ty("int", "", lo, hi), False, (lo, hi))

    def quantified(self, ctx: Ctx, d: int) -> str:
        text, sym = self.quantifier(ctx)
        ctx.syms.append(sym)
        try:
            body = self.bool_expr(ctx, d)
        finally:
            ctx.syms.pop()
        return f"{self.r.choice(['Forall', 'Exists'])} {text} Do {body} End"

    def call(self, f: Routine, ctx: Ctx, d: int) -> str:
        args = []
        for name, t, by_ref in f.params:
            if by_ref:
                des = self.designator(ctx, lambda u, t=t: u == t, not ctx.in_function and f.kind == "procedure")
                if des is None:
                    raise NoValue(t)
                args.append(des[0])
            else:
                args.append(self.expr(t, ctx, d))
        return f"{f.name}({', '.join(args)})"

    # ------------------------------------------------------------------ statements
    def assignable(self, ctx: Ctx, t: Ty) -> bool:
        return t.simple

    def assign(self, ctx: Ctx, d: int) -> str:
        r = self.r
        if not ctx.in_function and self.chance(0.12):
            # a whole array or record copy
            des = self.designator(ctx, lambda u: not u.simple and u.name != "" and u.kind != "multiset", True)
            if des:
                src = self.designator(ctx, lambda u, t=des[1]: u == t, False)
                if src:
                    return f"{des[0]} := {src[0]};"
        des = self.designator(ctx, lambda u: u.simple, True)
        if des is None:
            raise NoValue(INT)
        text, t = des
        if not ctx.in_function and self.chance(0.03) and not self.rumur:  # Rumur has no UNDEFINED
            return f"{text} := UNDEFINED;"  # newlist6.m: copies the undefined value
        if t.kind == "int":
            value = self.int_expr(ctx, d)
            if self.chance(0.75):
                # reduce into range (non-negative: C's % keeps the sign)
                value = f"(({value}) % {t.hi - t.lo + 1} + {t.hi - t.lo + 1}) % {t.hi - t.lo + 1}" + (f" + {t.lo}" if t.lo else "")
            return f"{text} := {value};"
        return f"{text} := {self.expr(t, ctx, d)};"

    def block(self, ctx: Ctx, n: int, d: int) -> list[str]:
        out = []
        for _ in range(n):
            try:
                out.append(self.stmt(ctx, d))
            except NoValue:
                pass
        return out

    def stmt(self, ctx: Ctx, d: int) -> str:
        r = self.r
        kinds = ["assign"] * 6
        if d > 0:
            kinds += ["if"] * 3 + ["switch", "for", "alias"]
            if not ctx.in_function:
                kinds += ["while"] if ctx.loops == 0 else []
        if not ctx.in_function:
            kinds += ["clear", "undefine", "call", "call"]
        kinds += ["error", "assert", "put"]
        if self.rumur and not ctx.in_function:  # Rumur's statements (not in functions: refused)
            kinds += ["cover", "assume"]
        if not ctx.in_function and any(x.ty.kind == "multiset" for x in ctx.syms):
            kinds += ["msadd", "msadd", "msremovepred"] + (["msremove"] if ctx.chosen else [])
        kind = r.choice(kinds)
        ind = lambda lines: " ".join(lines)
        if kind == "assign":
            return self.assign(ctx, max(d, 1))
        if kind == "if":
            parts = [f"If {self.bool_expr(ctx, 2)} Then {ind(self.block(ctx, r.randint(1, 2), d - 1))}"]
            for _ in range(r.choice([0, 0, 1, 2])):
                parts.append(f"Elsif {self.bool_expr(ctx, 2)} Then {ind(self.block(ctx, r.randint(1, 2), d - 1))}")
            if self.chance(0.6):
                parts.append(f"Else {ind(self.block(ctx, r.randint(1, 2), d - 1))}")
            return " ".join(parts) + " End;"
        if kind == "switch":
            t = r.choice([INT, self.color])
            subject = self.expr(t, ctx, 1)
            values = [str(v) for v in range(0, 4)] if t.kind == "int" else list(self.color.values)
            r.shuffle(values)
            cases = []
            while values and len(cases) < 3:
                labels = [values.pop() for _ in range(min(len(values), r.choice([1, 1, 2])))]
                cases.append(f"Case {', '.join(labels)}: {ind(self.block(ctx, r.randint(1, 2), d - 1))}")
            tail = f" Else {ind(self.block(ctx, 1, d - 1))}" if self.chance(0.5) else ""
            return f"Switch {subject} {' '.join(cases)}{tail} End;"
        if kind == "for":
            text, sym = self.quantifier(ctx)
            if self.chance(0.3) and sym.const_range:
                lo, hi = sym.const_range
                text = f"{sym.name} := {hi} To {lo} By -1" if self.chance(0.5) else f"{sym.name} := {lo} To {hi + 1} By 2"
                sym.const_range = (lo, hi + 1) if "By 2" in text else (lo, hi)
            ctx.syms.append(sym)
            try:
                body = self.block(ctx, r.randint(1, 2), d - 1)
            finally:
                ctx.syms.pop()
            return f"For {text} Do {ind(body)} End;"
        if kind == "while":
            # bounded by a rule-local counter
            counter = self.fresh("w")
            self.pending_locals.append((counter, self.val))
            ctx.loops += 1
            ctx.syms.append(Sym(counter, self.val, False))
            try:
                body = self.block(ctx, r.randint(1, 2), d - 1)
            finally:
                ctx.syms.pop()
                ctx.loops -= 1
            bound = r.randint(0, min(2, self.val.hi))
            cond = f"{counter} < {bound}" + (f" & {self.bool_expr(ctx, 1)}" if self.chance(0.4) else "")
            if self.chance(0.15):
                # More rounds than our old bound of 256 (CMurphi's -loop is 1000): within it,
                # or past it, a fault in both tools.
                hi = r.choice([300, 999, 1000])
                self.pending_locals[-1] = (counter, Ty("int", f"0..{hi}", 0, hi))
                return f"{counter} := 0; While {counter} < {hi} Do {counter} := {counter} + 1; End;"
            return f"{counter} := 0; While {cond} Do {ind(body)} {counter} := {counter} + 1; End;"
        if kind == "alias":
            name = self.fresh("al")
            if self.chance(0.6):
                des = self.designator(ctx, lambda u: u.kind != "multiset", not ctx.in_function)
                if des is None:
                    raise NoValue(INT)
                target, t = des
                writable = not ctx.in_function
            else:
                t = r.choice([INT, BOOL, self.color])
                target = self.expr(t, ctx, 1)
                t = self.val if t.kind == "int" else t
                writable = False
            ctx.syms.append(Sym(name, t, writable))
            try:
                body = self.block(ctx, r.randint(1, 2), d - 1)
            finally:
                ctx.syms.pop()
            return f"Alias {name}: {target} Do {ind(body)} End;"
        if kind == "clear":
            des = self.designator(ctx, lambda u: not u.has_scalarset() and u.kind != "multiset", True)
            if des is None or not any(s.writable and not s.ty.has_scalarset() for s in ctx.syms):
                raise NoValue(INT)
            return f"Clear {des[0]};"
        if kind == "undefine":
            des = self.designator(ctx, lambda u: u.kind != "multiset", True)
            if des is None or self.chance(0.7):
                raise NoValue(INT)
            return f"Undefine {des[0]};"
        if kind == "call":
            procs = [f for f in ctx.routines if f.kind == "procedure"]
            if not procs:
                raise NoValue(INT)
            return self.call(r.choice(procs), ctx, 1) + ";"
        if kind == "error":
            if not self.chance(0.25):
                raise NoValue(INT)
            return f'If {self.bool_expr(ctx, 1)} Then Error "{self.fresh("e")}"; End;'
        if kind == "msadd":
            # Past its size an error in both tools: mostly guarded by the count.
            element = self.designator(ctx, lambda u: u == self.mst.elem, False)
            if element is None:
                raise NoValue(INT)
            add = f"MultisetAdd({element[0]}, ms);"
            if self.chance(0.8):
                return f"If MultisetCount({self.fresh('c')}: ms, true) < {self.mst.hi} Then {add} End;"
            return add
        if kind == "msremovepred":
            k = self.fresh("j")
            ctx.syms.append(Sym(f"ms[{k}]", self.mst.elem, False))
            try:
                pred = self.bool_expr(ctx, 1)
            finally:
                ctx.syms.pop()
            return f"MultisetRemovePred({k}: ms, {pred});"
        if kind == "msremove":
            return f"MultisetRemove({r.choice(ctx.chosen)}, ms);"
        if kind == "put":
            return f'Put "{self.fresh("text")}";' if self.chance(0.5) else f"Put {self.int_expr(ctx, 1)};"
        if kind == "assert":
            return f'Assert {self.bool_expr(ctx, 2)} "{self.fresh("as")}";'
        if kind == "cover":
            return f'Cover "{self.fresh("cv")}" {self.bool_expr(ctx, 2)};'
        if kind == "assume":
            if not self.chance(0.4):
                raise NoValue(INT)
            return f'Assume "{self.fresh("am")}" {self.bool_expr(ctx, 2)};'
        raise AssertionError(kind)

    # ------------------------------------------------------------------ routines
    def procedure(self, globals_: list[Sym], routines: list[Routine]) -> tuple[Routine, str]:
        r = self.r
        name = self.fresh("Proc")
        params = []
        candidates = [self.val, BOOL, self.color, self.pid, self.rec, self.arr, self.small]
        for _ in range(r.randint(1, 3)):
            t = r.choice(candidates)
            by_ref = (not t.simple) or self.chance(0.5)
            params.append((self.fresh("f"), t, by_ref))
        routine = Routine(name, "procedure", params)
        locals_ = [(self.fresh("l"), r.choice([self.val, BOOL, self.color]))] if self.chance(0.6) else []
        syms = list(globals_) + [Sym(n, t, by_ref) for n, t, by_ref in params] + [Sym(n, t, True) for n, t in locals_]
        ctx = Ctx(syms, routines=list(routines))
        self.pending_locals = []
        body = []
        if locals_ and self.chance(0.9):
            n, t = locals_[0]
            value = f"({self.int_expr(ctx, 1)}) % {t.hi + 1}" if t.kind == "int" else self.expr(t, ctx, 1)
            body.append(f"{n} := {value};")
        body += self.block(ctx, r.randint(1, 3), 2)
        if self.chance(0.5):
            body.insert(r.randint(0, len(body)), f"If {self.bool_expr(ctx, 1)} Then Return; End;")
        locals_ += self.pending_locals
        formals = "; ".join(f"{'Var ' if by_ref else ''}{n}: {self.type_text(t)}" for n, t, by_ref in params)
        decls = (" Var " + " ".join(f"{n}: {self.type_text(t)};" for n, t in locals_)) if locals_ else ""
        text = f"Procedure {name}({formals});{decls}\nBegin\n  " + "\n  ".join(body) + "\nEnd;"
        return routine, text

    def function(self, globals_: list[Sym], routines: list[Routine]) -> tuple[Routine, str]:
        r = self.r
        name = self.fresh("Fun")
        result = r.choice([self.val, BOOL, self.color])
        params = []
        for _ in range(r.randint(1, 2)):
            t = r.choice([self.val, BOOL, self.color, self.pid, self.arr])
            params.append((self.fresh("f"), t, not t.simple))
        routine = Routine(name, "function", params, result)
        locals_ = [(self.fresh("l"), r.choice([self.val, BOOL]))] if self.chance(0.7) else []
        syms = [Sym(s.name, s.ty, False) for s in globals_] + [Sym(n, t, False) for n, t, _ in params] \
            + [Sym(n, t, True) for n, t in locals_]
        ctx = Ctx(syms, in_function=True, routines=[f for f in routines if f.kind == "function"])
        self.pending_locals = []
        body = []
        if locals_:
            n, t = locals_[0]
            value = self.int_expr(ctx, 1) + f" % {t.hi + 1}" if t.kind == "int" else self.expr(t, ctx, 1)
            body.append(f"{n} := {value};")
        body += self.block(ctx, r.randint(0, 2), 2)
        ret = lambda: self.expr(result, ctx, 2) if result.kind != "int" else f"({self.int_expr(ctx, 2)}) % {result.hi + 1}"
        if self.chance(0.5):
            body.append(f"If {self.bool_expr(ctx, 1)} Then Return {ret()}; End;")
        body.append(f"Return {ret()};")
        formals = "; ".join(f"{'Var ' if by_ref else ''}{n}: {self.type_text(t)}" for n, t, by_ref in params)
        decls = (" Var " + " ".join(f"{n}: {self.type_text(t)};" for n, t in locals_)) if locals_ else ""
        text = f"Function {name}({formals}): {self.type_text(result)};{decls}\nBegin\n  " + "\n  ".join(body) + "\nEnd;"
        return routine, text

    # ------------------------------------------------------------------ rules
    def rule(self, ctx: Ctx, indent: str) -> str:
        r = self.r
        self.pending_locals = []
        locals_ = [(self.fresh("v"), r.choice([self.val, BOOL]))] if self.chance(0.3) else []
        guard = f"{self.bool_expr(ctx, 2)} ==> " if self.chance(0.8) else ""
        body = []
        if self.chance(0.25):
            # A local array or record (mcslock2.m), set from a global of its type.
            t = r.choice([self.rec, self.arr, self.recs])
            source = self.designator(ctx, lambda u, t=t: u == t, False)
            if source:
                n = self.fresh("v")
                locals_.append((n, t))
                body.append(f"{n} := {source[0]};")
        for n, t in locals_:
            ctx.syms.append(Sym(n, t, True))
        for n, t in locals_:
            if t.simple:
                body.append(f"{n} := {self.int_expr(ctx, 1) + ' % ' + str(t.hi + 1) if t.kind == 'int' else self.bool_expr(ctx, 1)};")
        body += self.block(ctx, r.randint(1, 3), 3)
        del ctx.syms[len(ctx.syms) - len(locals_):]
        locals_ += self.pending_locals
        decls = ("Var " + " ".join(f"{n}: {self.type_text(t)};" for n, t in locals_) + " ") if locals_ else ""
        name = self.fresh("rule")
        # "Begin" is needed only after declarations (CMurphi), and after a rule name without
        # a guard (else the first statement's designator reads as the start of a guard).
        begin = "Begin" if decls or not guard or self.chance(0.6) else ""
        return f'{indent}Rule "{name}" {guard}{decls}{begin}\n{indent}  ' + f"\n{indent}  ".join(body) + f"\n{indent}End;"

    def rules(self, ctx: Ctx, depth: int, indent: str) -> list[str]:
        r = self.r
        out = []
        for _ in range(r.randint(1, 3) if depth else r.randint(2, 4)):
            if depth < 2 and self.chance(0.35):
                quants = []
                for _ in range(r.choice([1, 1, 2])):
                    text, sym = self.quantifier(ctx, ruleset=True)
                    quants.append(text)
                    ctx.syms.append(sym)
                inner = self.rules(ctx, depth + 1, indent + "  ")
                if self.chance(0.2) and not ctx.chosen:  # (mu crashes on an Invariant inside Choose)
                    inner.append(f'{indent}  Invariant "{self.fresh("inv")}" {self.invariant(ctx)};')
                del ctx.syms[len(ctx.syms) - len(quants):]
                out.append(f"{indent}Ruleset {'; '.join(quants)} Do\n" + "\n".join(inner) + f"\n{indent}End;")
            elif depth < 2 and self.chance(0.15) and any(x.ty.kind == "multiset" for x in ctx.syms):
                k = self.fresh("ch")
                ctx.syms.append(Sym(f"ms[{k}]", self.mst.elem, True))
                ctx.chosen.append(k)
                alias = self.fresh("am") if self.chance(0.5) else None
                if alias:
                    # EECS570's ``Choose midx : Net[n] Do Alias msg : Net[n][midx] Do Rule``:
                    # bound only at places holding an element (CMurphi's Choose visits no other).
                    ctx.syms.append(Sym(alias, self.mst.elem, True))
                inner = self.rules(ctx, depth + 1, indent + "  ")
                if alias:
                    ctx.syms.pop()
                    inner = [f"{indent}  Alias {alias}: ms[{k}] Do"] + inner + [f"{indent}  End;"]
                ctx.chosen.pop()
                ctx.syms.pop()
                out.append(f"{indent}Choose {k}: ms Do\n" + "\n".join(inner) + f"\n{indent}End;")
            elif depth < 2 and self.chance(0.12):
                # An Alias around rules (dp4.m, the dash protocols): of a designator (perhaps
                # indexed by a ruleset parameter) or of an expression.
                name = self.fresh("ar")
                if self.chance(0.7):
                    des = self.designator(ctx, lambda u: u.kind != "multiset", True)
                    if des is None:
                        continue
                    target, t, writable = des[0], des[1], True
                else:
                    t = r.choice([INT, BOOL, self.color])
                    target = self.expr(t, ctx, 1)
                    t, writable = (self.val if t.kind == "int" else t), False
                ctx.syms.append(Sym(name, t, writable))
                inner = self.rules(ctx, depth + 1, indent + "  ")
                ctx.syms.pop()
                out.append(f"{indent}Alias {name}: {target} Do\n" + "\n".join(inner) + f"\n{indent}End;")
            elif self.chance(0.12):
                # A rule that changes nothing: a state where only such rules are enabled is a
                # deadlock for CMurphi (and for us).
                guard = f"{self.bool_expr(ctx, 1)} ==> " if self.chance(0.7) else ""
                out.append(f'{indent}Rule "{self.fresh("stay")}" {guard}Begin End;')
            else:
                out.append(self.rule(ctx, indent))
        return out

    def invariant(self, ctx: Ctx) -> str:
        # Mostly one that holds (reading an undefined value fails it), sometimes random.
        des = self.designator(ctx, lambda u: u.simple, True)
        if des and self.chance(0.7):
            return f"IsUndefined({des[0]}) | ({des[0]} = {des[0]})"
        e = self.bool_expr(ctx, 2)
        if self.chance(0.5):
            des = self.designator(ctx, lambda u: u.simple, False)
            if des:
                e = f"IsUndefined({des[0]}) | {e}"
        if self.chance(0.5):
            e = f"true | {e}"
        return e

    # ------------------------------------------------------------------ start state
    def init_value(self, t: Ty) -> str:
        if t.kind == "int":
            return str(self.r.randint(t.lo, t.hi))
        if t.kind == "bool":
            return self.r.choice(["true", "false"])
        if t.kind in ("enum", "union"):
            return self.r.choice(self.color.values if t.kind == "union" else t.values)
        raise AssertionError(t)

    def init_stmts(self, text: str, t: Ty, loop_vars: list[str]) -> list[str]:
        if t.kind == "multiset":
            return []  # starts empty
        if t.kind == "scalar" or t == self.pu:
            if self.chance(0.15):
                return [f"Undefine {text};"]
            if t != self.hid and loop_vars and self._pid_loop == loop_vars[-1]:
                return [f"{text} := {loop_vars[-1]};"]
            var = self.fresh("i")  # a scalarset has no literals: the loop leaves the last value
            source = t if t.kind == "scalar" else self.r.choice(t.members)
            return [f"For {var}: {source.name} Do {text} := {var}; End;"]
        if t.simple:
            if self.chance(0.06):
                return [f"Undefine {text};"]
            return [f"{text} := {self.init_value(t)};"]
        if t.kind == "record":
            out = []
            for n, f in t.fields:
                out += self.init_stmts(f"{text}.{n}", f, loop_vars)
            return out
        if not t.has_scalarset() and self.chance(0.3):
            return [f"Clear {text};"]
        var = self.fresh("i")
        if t.index == self.pid:
            self._pid_loop = var
        body = self.init_stmts(f"{text}[{var}]", t.elem, loop_vars + [var])
        return [f"For {var}: {self.type_text(t.index)} Do " + " ".join(body) + " End;"]

    def startstate(self, globals_: list[Sym]) -> str:
        self._pid_loop = None
        body = []
        param = None
        pid_vars = [s for s in globals_ if s.ty == self.pid]
        if pid_vars and self.chance(0.4):
            param = self.fresh("s")
        for s in globals_:
            if param and s is pid_vars[0]:
                body.append(f"{s.name} := {param};")
            else:
                body += self.init_stmts(s.name, s.ty, [])
        if param:
            # One start state per binding that is not every combination of per-variable
            # values (list6too.m's message at place i): the parameter in several variables,
            # or a value at the place it names in an array over pid.
            for s in pid_vars[1:]:
                if self.chance(0.5):
                    body.append(f"{s.name} := {param};")
            for s in globals_:
                if s.ty.kind == "array" and s.ty.index == self.pid and s.ty.elem.kind in ("int", "bool") \
                        and self.chance(0.5):
                    body.append(f"{s.name}[{param}] := {self.init_value(s.ty.elem)};")
        text = "Startstate Begin\n  " + "\n  ".join(body) + "\nEnd;"
        if param:
            text = f"Ruleset {param}: pid Do\n{text}\nEnd;"
        return text

    # ------------------------------------------------------------------ model
    def model(self) -> str:
        self.types()
        globals_ = self.variables()
        used = {s.ty for s in globals_}
        end = "" if self.rumur else ";"  # Rumur: the ";" after a declaration is optional
        lines = ["-- generated by tests/murphi_gen.py", "Const"]
        lines += [f"  {n}: {v}{end}" for n, v in self.consts if n != "H" or self.two]
        lines.append("Type")
        lines += [f"  {t.name}: {self.decl_text(t)}{end}" for t in self.named
                  if self.two or t not in (self.hid, self.pu, self.puarr)]
        lines.append("Var")
        lines += [f"  {s.name}: {self.type_text(s.ty)}{end}" for s in globals_]
        routines: list[Routine] = []
        for _ in range(self.r.choice([0, 1, 2, 3])):
            make = self.procedure if self.chance(0.5) else self.function
            try:
                routine, text = make(globals_, routines)
            except NoValue:
                continue
            routines.append(routine)
            lines.append(text)
        ctx = Ctx(list(globals_), routines=routines)
        lines += self.rules(ctx, 0, "")
        lines.append(self.startstate(globals_))
        if self.chance(0.2):
            lines.append(self.startstate(globals_))  # several Startstates: each is initial
        for _ in range(self.r.choice([0, 1, 1, 2])):
            lines.append(f'Invariant "{self.fresh("inv")}" {self.invariant(ctx)};')
        if self.rumur:  # Rumur's global properties
            if self.chance(0.4):
                lines.append(f'Assume "{self.fresh("ga")}" {self.invariant(ctx)};')
            if self.chance(0.3):
                lines.append(f'Liveness "{self.fresh("lv")}" {self.invariant(ctx)};')
            if self.chance(0.2):
                lines.append(f'Liveness "{self.fresh("lv")}" {self.bool_expr(ctx, 1)};')
        del used
        return "\n".join(lines) + "\n"


class NoValue(Exception):
    """No expression or designator of the wanted type is in scope: try something else."""


def generate(seed: int, budget: int = 6_000, rumur: bool = False) -> str:
    """The text of random model number ``seed`` (deterministic); ``rumur``: also in Rumur's
    syntax and with its operators (see ``Gen.rumur``)."""
    return Gen(seed, budget, rumur).model()


def generate_multiset(seed: int) -> str:
    """A random model of a network that is a ``Multiset`` of messages naming scalarset
    processes (newlist6.m's and newcache3.m's shape): the scalarset group is a symmetry of
    its unsorted reading, so ``explore --reduce exact`` meets CMurphi's ``-sym1`` (multisets
    reduced) and ``-sym1 -nomultiset``.  Drawn: the number of processes and places, an
    element that is the scalarset itself or a record (with a second process field, a bit),
    and which rules there are (send, receive by ``Choose``, purge by ``MultisetRemovePred``,
    forward by rewriting an element, a count guard, an invariant)."""
    r = random.Random(seed)
    n, size = r.choice([2, 3]), r.choice([2, 3])
    record = r.random() < 0.7
    two = record and r.random() < 0.5
    lines = [f"Const N : {n};", "Type P : Scalarset(N);"]
    if record:
        lines.append("  M : Record p : P;" + (" q : P;" if two else "") + " v : 0..1; End;")
    elem = "M" if record else "P"
    lines += [f"Var ms : Multiset[{size}] Of {elem};", "  st : Array[P] Of 0..2;"]
    last = r.random() < 0.5
    if last:
        lines.append("  last : P;")
    lines.append("Startstate Begin For i : P Do st[i] := 0; End;" + (" Undefine last;" if last else "") + " End;")
    pid = (lambda i: f"ms[{i}].p") if record else (lambda i: f"ms[{i}]")
    room = f"MultisetCount(c : ms, true) < {size}"
    body = []
    if record:
        value = r.choice(["st[p] % 2", "1 - st[p] % 2", "0"])
        fill = f"m.p := p; m.v := {value};" + (f" m.q := {r.choice(['p', 'last'])};" if two else "")
        if two and "last" in fill and not last:
            fill = fill.replace("m.q := last", "m.q := p")
        body.append(f'Ruleset p : P Do Rule "send" st[p] < 2 & {room} ==> Var m : M;\n'
                    f'  Begin {fill} MultisetAdd(m, ms); st[p] := st[p] + 1; End; End;')
    else:
        body.append(f'Ruleset p : P Do Rule "send" st[p] < 2 & {room} ==>\n'
                    f'  Begin MultisetAdd(p, ms); st[p] := st[p] + 1; End; End;')
    effect = r.choice(["st[{p}] := 0;", "st[{p}] := (st[{p}] + 1) % 3;", "If st[{p}] > 0 Then st[{p}] := st[{p}] - 1; End;"])
    guard = "true" if not record or r.random() < 0.5 else "ms[i].v = 0"
    recv = f'Choose i : ms Do Rule "recv" {guard} ==>\n  Begin {effect.format(p=pid("i"))}'
    if last:
        recv += f" last := {pid('i')};"
    body.append(recv + " MultisetRemove(i, ms); End; End;")
    if r.random() < 0.5:
        body.append(f'Ruleset p : P Do Rule "purge" st[p] = 2 ==>\n'
                    f'  Begin MultisetRemovePred(j : ms, {pid("j")} = p); st[p] := 0; End; End;')
    if r.random() < 0.4:
        body.append(f'Ruleset p : P Do Choose i : ms Do Rule "forward" {pid("i")} != p ==>\n'
                    f'  Begin {pid("i")} := p; End; End; End;')
    if last and r.random() < 0.5:
        body.append('Rule "forget" !IsUndefined(last) ==> Undefine last; End;')
    if r.random() < 0.5:
        body.append(f'Invariant "bounded" MultisetCount(c : ms, true) <= {size};')
    r.shuffle(body)
    return "\n".join(lines + body) + "\n"


def generate_rumur_properties(seed: int) -> str:
    """A small random model in Rumur's language whose runs mostly end without an error, so
    that Rumur's global ``Assume``, ``Liveness`` and ``Cover``/``Assume`` statements decide
    the verdict and the count: counters ``x``, ``y`` (0..M) and a flag ``b``, or with
    ``sym`` a scalarset array ``st`` (so ``--reduce exact`` has a group), rules that keep
    the values in range, and drawn properties over them."""
    r = random.Random(seed)
    m = r.choice([2, 3, 4])
    sym = r.random() < 0.4

    def cmp() -> str:
        if sym:
            q = r.choice(["Exists", "Forall"])
            return f"{q} j: P Do st[j] {r.choice(['=', '!=', '<=', '>='])} {r.randint(0, m)} End"
        a, b = r.sample(["x", "y", str(r.randint(0, m)), "x + y"], 2)
        e = f"{a} {r.choice(['=', '!=', '<', '<=', '>', '>='])} {b}"
        return e if r.random() < 0.7 else f"({e}) {r.choice(['|', '&'])} {r.choice(['b', '!b'])}"

    lines = [f"Const M: {m};"]
    if sym:
        lines += [f"Type P: Scalarset({r.choice([2, 3])});", "Var st: Array [P] Of 0 .. M; b: boolean;",
                  "Startstate Begin For j: P Do st[j] := 0; End; b := false; End;"]
        rules = [("st[p] < M", "st[p] := st[p] + 1;"), ("st[p] > 0", "st[p] := st[p] - 1;"),
                 ("st[p] = M", "st[p] := 0;")]
    else:
        lines += ["Var x: 0 .. M; y: 0 .. M; b: boolean;",
                  f"Startstate Begin x := {r.randint(0, m)}; y := 0; b := false; End;"]
        rules = [("x < M", "x := x + 1;"), ("x > 0", "x := x - 1;"), ("y < M", "y := y + 1;"),
                 ("y > 0 & x > 0", "y := y - 1;"), ("x = M", "x := 0;")]
    rules = r.sample(rules, r.randint(2, len(rules)))
    k = 0
    for guard, body in rules:
        extra = []
        if r.random() < 0.35:
            k += 1
            extra.append(f'Cover "c{k}" {cmp()};')
        if r.random() < 0.2:
            k += 1
            extra.append(f'Assume "a{k}" {cmp()};')
        r.shuffle(extra)
        stmts = " ".join([body] + extra) if r.random() < 0.5 else " ".join(extra + [body])
        rule = f"Rule {guard} ==> Begin {stmts} End;"
        lines.append(f"Ruleset p: P Do {rule} End;" if sym else rule)
    lines.append("Rule Begin b := !b; End;" if r.random() < 0.7 else "Rule !b ==> Begin b := true; End;")
    for _ in range(r.choice([0, 1, 1, 2])):
        k += 1
        lines.append(f'Assume "g{k}" {cmp()};')
    for _ in range(r.choice([0, 1, 1, 2])):
        k += 1
        lines.append(f'Liveness "l{k}" {cmp()};')
    if r.random() < 0.3:
        lines.append(f'Cover "cp" {cmp()};')
    return "\n".join(lines) + "\n"
