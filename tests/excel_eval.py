"""A tiny evaluator for the formulas of the offline scoring sheet (tests only).

Supports exactly what the sheet uses: cell and range references, numbers, text,
= <> & + - * /, and SUM, COUNTIFS, SUMIFS, IF, AND, with Excel's rules for blank
cells and case-insensitive criteria. Lets tests check that the workbook's
formulas compute what ``studies.rubric.sheet_totals`` computes.
"""

from __future__ import annotations

from openpyxl.formula import Tokenizer
from openpyxl.formula.tokenizer import Token
from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import range_boundaries


class Evaluator:
    def __init__(self, ws):
        self.ws = ws
        self.cache: dict[str, object] = {}

    def value(self, coord: str):
        coord = coord.replace("$", "")
        cell = self.ws[coord]
        if cell.data_type == "f":
            if coord not in self.cache:
                self.cache[coord] = self.formula(cell.value)
            return self.cache[coord]
        return cell.value

    def _range(self, ref: str) -> list:
        min_col, min_row, max_col, max_row = range_boundaries(ref.replace("$", ""))
        return [
            self.value(f"{get_column_letter(c)}{r}")
            for r in range(min_row, max_row + 1)
            for c in range(min_col, max_col + 1)
        ]

    def formula(self, text: str):
        tokens = [t for t in Tokenizer(text).items if t.type != Token.WSPACE]
        state = {"i": 0}

        def peek():
            return tokens[state["i"]] if state["i"] < len(tokens) else None

        def take():
            tok = tokens[state["i"]]
            state["i"] += 1
            return tok

        def binary(next_level, ops):
            def parse():
                left = next_level()
                while (tok := peek()) is not None and tok.type == Token.OP_IN and tok.value in ops:
                    take()
                    left = _apply(tok.value, left, next_level())
                return left

            return parse

        def primary():
            tok = take()
            if tok.type == Token.OPERAND:
                if tok.subtype == Token.RANGE:
                    return RangeValue(self._range(tok.value)) if ":" in tok.value else self.value(tok.value)
                if tok.subtype == Token.NUMBER:
                    return float(tok.value)
                if tok.subtype == Token.TEXT:
                    return tok.value[1:-1].replace('""', '"')
                if tok.subtype == Token.LOGICAL:
                    return tok.value == "TRUE"
            if tok.type == Token.FUNC and tok.subtype == Token.OPEN:
                name, args = tok.value[:-1].upper(), []
                if not (peek().type == Token.FUNC and peek().subtype == Token.CLOSE):
                    args.append(expr())
                    while peek().type == Token.SEP:
                        take()
                        args.append(expr())
                take()
                return FUNCTIONS[name](*args)
            if tok.type == Token.PAREN and tok.subtype == Token.OPEN:
                inner = expr()
                take()
                return inner
            if tok.type == Token.OP_PRE and tok.value == "-":
                return -_num(primary())
            raise ValueError(f"unsupported token {tok}")

        term = binary(primary, {"*", "/"})
        additive = binary(term, {"+", "-"})
        concat = binary(additive, {"&"})
        comparison = binary(concat, {"=", "<>", "<", ">", "<=", ">="})
        expr = comparison
        return expr()


class RangeValue(list):
    pass


def _blank(v) -> bool:
    return v is None or v == ""


def _num(v) -> float:
    if _blank(v):
        return 0
    if isinstance(v, bool):
        return int(v)
    return float(v)


def _eq(a, b) -> bool:
    if _blank(a) and _blank(b):
        return True
    if isinstance(a, str) or isinstance(b, str):
        return str("" if a is None else a).casefold() == str("" if b is None else b).casefold()
    return _num(a) == _num(b)


def _apply(op, a, b):
    if op == "&":
        return f"{'' if a is None else a}{'' if b is None else b}"
    if op == "=":
        return _eq(a, b)
    if op == "<>":
        return not _eq(a, b)
    if op in ("<", ">", "<=", ">="):
        x, y = _num(a), _num(b)
        return {"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]
    x, y = _num(a), _num(b)
    return {"+": x + y, "-": x - y, "*": x * y, "/": x / y}[op]


def _matches(value, criterion) -> bool:
    if criterion == "<>":
        return not _blank(value)
    if criterion == "" or criterion is None:
        return _blank(value)
    return _eq(value, criterion)


def _ifs(ranges_and_criteria) -> list[bool]:
    pairs = list(zip(ranges_and_criteria[::2], ranges_and_criteria[1::2], strict=True))
    size = len(pairs[0][0])
    return [all(_matches(rng[i], crit) for rng, crit in pairs) for i in range(size)]


def _sum(*args):
    total = 0
    for arg in args:
        values = arg if isinstance(arg, list) else [arg]
        total += sum(_num(v) for v in values if not isinstance(v, str))
    return total


FUNCTIONS = {
    "SUM": _sum,
    "COUNTIFS": lambda *args: sum(_ifs(args)),
    "SUMIFS": lambda total, *args: sum(_num(v) for v, ok in zip(total, _ifs(args), strict=True) if ok),
    "IF": lambda cond, yes, no=False: yes if cond else no,
    "AND": lambda *args: all(bool(a) for a in args),
}
