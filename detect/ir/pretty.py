"""Readable text for IR expressions, statements and whole models (``symdetect linearise``)."""
from __future__ import annotations

from detect.ir import (
    Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, SequentialModel, Stmt, Summand,
    Unary, While, show_domain,
)

_PRECEDENCE = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, "<=": 7, ">": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}


def show_expr(e: Expr, parent: int = 0) -> str:
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Name):
        return e.name
    if isinstance(e, Index):
        return f"{e.array}[{show_expr(e.index)}]"
    if isinstance(e, Unary):
        return f"{e.op}{show_expr(e.operand, 11)}"
    if isinstance(e, Binary):
        if e.op in ("min", "max"):
            return f"{e.op}({show_expr(e.left)}, {show_expr(e.right)})"
        p = _PRECEDENCE[e.op]
        text = f"{show_expr(e.left, p)} {e.op} {show_expr(e.right, p + 1)}"
        return f"({text})" if p < parent else text
    if isinstance(e, Ite):
        text = f"{show_expr(e.cond, 1)} ? {show_expr(e.then)} : {show_expr(e.else_)}"
        return f"({text})" if parent else text
    raise ValueError(f"unknown expression {e!r}")


def show_stmt(st: Stmt, indent: str = "") -> str:
    if isinstance(st, Assign):
        return f"{indent}{show_expr(st.target)} := {show_expr(st.value)};"
    if isinstance(st, If):
        text = f"{indent}if ({show_expr(st.cond)}) {{\n{show_block(st.then, indent + '  ')}{indent}}}"
        if st.else_:
            text += f" else {{\n{show_block(st.else_, indent + '  ')}{indent}}}"
        return text
    if isinstance(st, While):
        return f"{indent}while ({show_expr(st.cond)}) {{\n{show_block(st.body, indent + '  ')}{indent}}}"
    if isinstance(st, Assert):
        return f"{indent}assert({show_expr(st.cond)});"
    raise ValueError(f"unknown statement {st!r}")


def show_block(stmts: tuple[Stmt, ...], indent: str) -> str:
    return "".join(show_stmt(st, indent) + "\n" for st in stmts)


def show_summand(s: Summand) -> str:
    binders = "".join(f"sum {loc.name}:{show_domain(loc.domain)} . " for loc in s.locals)
    event = ".".join([s.event.name] + [show_expr(a, 11) for a in s.event.args])
    program = " ".join(show_stmt(st) for st in s.program).replace("\n", " ")
    origin = f"    // {s.origin}" if s.origin.locations else ""
    return f"{binders}[{show_expr(s.guard)}] {event} {{{program}}}{origin}"


def show_model(model: SequentialModel) -> str:
    lines = [f"// {model.name}"]
    for v in model.variables:
        kind = "hvar" if v.hidden else "var"
        size = "" if v.size is None else f"[{v.size}]"
        inits = ", ".join(
            str(a[0]) if len(a) == 1 else ("*" if a == v.domain else "{" + ",".join(map(str, a)) + "}")
            for a in v.init
        )
        init = inits if v.size is None else f"[{inits}]"
        lines.append(f"{kind} {v.name}{size} : {show_domain(v.domain)} = {init};")
    if model.initial is not None:
        lines.append(f"// initially one of {len(model.initial)} listed states, not every combination above")
    for i, s in enumerate(model.summands):
        lines.append(("  + " if i else "    ") + show_summand(s))
    if model.terminal is not None:
        lines.append(f"terminal {show_expr(model.terminal)};")
    return "\n".join(lines) + "\n"
