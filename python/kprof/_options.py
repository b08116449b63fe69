"""The option table (C++ ``api/options.hpp``, read through ``kprof._core.option_table()``) as the
Python faces use it: the typed signatures of :mod:`kprof`'s functions (``__signature__``, with
``Literal`` for choices), the check of the keywords a call receives, the MCP tools' input schemas
and the pytest gate's options. No option, type, choice or default is written here: each comes from
the table's row.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import json
import keyword as _keyword
import os
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from kprof._errors import UsageError

PathLike = Union[str, "os.PathLike[str]"]

#: The keywords of every function that are not options of the table (the function's own).
COMMON = ("raise_on_failure", "progress", "wall_timeout_s")


@functools.lru_cache(maxsize=1)
def table() -> Dict[str, Any]:
    """The option table: {"kprof_version", "commands": {command: [row, ...]}} (see api/options.hpp).
    Read from ``_option_table.json`` beside this file (written from the C++ table by
    scripts/gen_faces.py, checked current by ctest FacesCurrent), so ``import kprof`` loads no C++;
    from the extension module itself where that file is missing."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_option_table.json")
    if os.path.exists(here):
        with open(here, encoding="utf-8") as f:
            return json.load(f)
    from kprof import _core  # the extension module: the C++ table itself

    return json.loads(_core.option_table())


def rows(command: str) -> List[Dict[str, Any]]:
    """The rows of ``command`` that the Python API and MCP take (``python`` true)."""
    return [r for r in table()["commands"][command] if r["python"]]


def row(command: str, key: str) -> Dict[str, Any]:
    """The row of keyword ``key`` of ``command``; KeyError when it has none."""
    for r in rows(command):
        if r["keyword"] == key:
            return r
    raise KeyError(key)


def annotation(r: Mapping[str, Any]) -> Any:
    """The Python type of a row: Literal[...] for choices, bool, int, float, str, or a list of str."""
    if r["choices"]:
        return Literal.__getitem__(tuple(r["choices"]))  # type: ignore[attr-defined]
    return {"flag": bool, "int": int, "number": float, "text": str, "path": PathLike,
            "texts": List[str], "paths": Union[PathLike, List[PathLike]]}[r["type"]]


def annotation_text(r: Mapping[str, Any]) -> str:
    """The annotation of a row as the .pyi writes it."""
    if r["choices"]:
        return "Literal[" + ", ".join(repr(c) for c in r["choices"]) + "]"
    return {"flag": "bool", "int": "int", "number": "float", "text": "str", "path": "PathLike",
            "texts": "Sequence[str]", "paths": "Union[PathLike, Sequence[PathLike]]"}[r["type"]]


def parameters(command: str) -> List[inspect.Parameter]:
    """The keyword-only parameters of ``command``'s options, each with its type and table default
    (None where the default is a rule: the command applies the rule)."""
    out = []
    for r in rows(command):
        default = r["default"] if r["type"] != "flag" else False
        ann = annotation(r) if default is not None or r["type"] == "flag" else Optional[annotation(r)]
        out.append(inspect.Parameter(r["keyword"], inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann))
    return out


def signature_of(fn: Any, command: str, drop: Sequence[str] = ()) -> inspect.Signature:
    """``fn``'s signature with its ``**options`` replaced by ``command``'s typed options."""
    sig = inspect.signature(fn, eval_str=True)  # real types: the MCP SDK builds its argument model from them
    own = [p for p in sig.parameters.values() if p.kind != inspect.Parameter.VAR_KEYWORD]
    names = {p.name for p in own}
    extra = [p for p in parameters(command) if p.name not in names and p.name not in drop]
    return sig.replace(parameters=own + extra)


def closest(word: str, candidates: Sequence[str]) -> Optional[str]:
    """The candidate closest to ``word`` (difflib, ratio >= 0.6), or None: the same suggestion on
    every Python version (3.10 to 3.12 suggest nothing for a keyword of **kwargs)."""
    near = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return near[0] if near else None


def check_keywords(command: str, options: Mapping[str, Any], function: str,
                   own: Sequence[str] = (), common: bool = True, drop: Sequence[str] = ()) -> None:
    """Checks the option keywords a call to ``function`` received against ``command``'s rows:
    unknown keywords (with the closest option; ``common``: the functions' own keywords too),
    ``help=True``, strings where a list belongs, a
    value of the wrong type or not among the choices. ``drop``: rows the function takes under its
    own keyword (size: sizes=), neither accepted nor suggested. Raises UsageError (nothing has run)."""
    known = {r["keyword"]: r for r in rows(command) if r["keyword"] not in drop}
    for key, value in options.items():
        if key == "help":
            raise UsageError(f"{function}() takes no help=: it runs the command and returns its report",
                             f"read help({function}) or `kprof {command} --help` for the options")
        r = known.get(key)
        if r is None:
            near = closest(key, list(known) + list(own) + (list(COMMON) if common else []))
            raise UsageError(f"{function}() got an unknown option {key!r}",
                             f"did you mean {near}=?" if near else
                             f"the options of {function}() are: {', '.join(sorted(known))}")
        if value is None:
            continue
        check_value(r, value, function)


def check_value(r: Mapping[str, Any], value: Any, function: str) -> None:
    """Raises UsageError when ``value`` does not fit row ``r`` (type, list, choices), with a hint."""
    key, kind = r["keyword"], r["type"]
    hint = f"{key} is {r['flag']} of the command line; inspect.signature(kprof.{function}) gives every option's type"
    if kind == "paths" and isinstance(value, (str, os.PathLike)):
        return  # one path: given once (a path is never split into characters)
    if kind in ("texts", "paths"):
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise UsageError(f"{function}(): {key} takes a list of strings, not {type(value).__name__} {value!r}",
                             f"write {key}=[{value!r}]")
        return
    if kind == "flag":
        if not isinstance(value, bool):
            raise UsageError(f"{function}(): {key} is True or False, not {value!r}", hint)
        return
    if isinstance(value, (list, tuple, dict)):
        raise UsageError(f"{function}(): {key} takes one value, not {type(value).__name__} {value!r}", hint)
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        raise UsageError(f"{function}(): {key} is an integer, not {value!r}", hint)
    if kind == "number" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise UsageError(f"{function}(): {key} is a number, not {value!r}", hint)
    if r["choices"] and value not in r["choices"]:
        raise UsageError(f"{function}(): {key}={value!r} is not one of {', '.join(r['choices'])}", hint)


def check_dims(dims: Optional[Mapping[str, Any]], command: str, function: str) -> None:
    """Dimension names must be Python identifiers (solve()/setup() parameters) and not options."""
    if dims is not None and not isinstance(dims, Mapping):
        raise UsageError(f"{function}(): dims is a dict {{name: value}}, not {dims!r}", "e.g. dims={'N': 1024}")
    for name, value in (dims or {}).items():
        if not isinstance(name, str) or not name.isidentifier() or _keyword.iskeyword(name):
            raise UsageError(f"{function}(): dimension name {name!r} is not a parameter name",
                             "dims keys are the names of solve()'s or setup()'s parameters, e.g. {'N': 1024}")
        if any(r["keyword"] == name for r in rows(command)):
            raise UsageError(f"{function}(): {name!r} is an option of kprof {command}, not a dimension",
                             f"pass it as {name}=... instead of in dims")
        if isinstance(value, (list, tuple, dict)):
            raise UsageError(f"{function}(): dimension {name} is one number, not {value!r}")


def option_words(command: str, options: Mapping[str, Any]) -> List[str]:
    """The command-line words of checked options: ``--flag`` for True, ``--opt VALUE`` (repeated
    for a list); None and False give nothing."""
    words: List[str] = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = row(command, key)["flag"]
        if value is True:
            words.append(flag)
        elif isinstance(value, (list, tuple)) and row(command, key)["type"] in ("texts", "paths"):
            for item in value:
                words += [flag, os.fspath(item) if isinstance(item, os.PathLike) else str(item)]
        else:
            words += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return words


def json_schema(command: str) -> Dict[str, Any]:
    """The MCP input schema of ``command``'s options: one typed property per option with its enum,
    default and description (help, unit and the rule of a default that is a rule)."""
    props: Dict[str, Any] = {}
    for r in rows(command):
        kind = r["type"]
        p: Dict[str, Any] = {"flag": {"type": "boolean"}, "int": {"type": "integer"}, "number": {"type": "number"},
                             "text": {"type": "string"}, "path": {"type": "string"},
                             "texts": {"type": "array", "items": {"type": "string"}},
                             "paths": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}}[kind]
        if r["choices"]:
            p["enum"] = list(r["choices"])
        if r["default"] is not None:
            p["default"] = r["default"]
        if r["min"] is not None and kind in ("int", "number"):
            p["exclusiveMinimum" if r["min_exclusive"] else "minimum"] = r["min"]
        if r["max"] is not None and kind in ("int", "number"):
            p["maximum"] = r["max"]
        desc = r["help"] + (f" [{r['unit']}]" if r["unit"] else "")
        if r["default_rule"] and r["default_rule"] not in r["help"]:  # once, where the help does not say it
            desc += f" (default: {r['default_rule']})"
        p["description"] = f"{r['flag']}: {desc}"
        props[r["keyword"]] = p
    return {"type": "object", "properties": props, "additionalProperties": False}


def pyi_params(command: str, drop: Sequence[str] = ()) -> Tuple[str, ...]:
    """The .pyi text of ``command``'s option parameters (``warmup_ms: float = ...``)."""
    out = []
    for r in rows(command):
        if r["keyword"] in drop or r["keyword"] in COMMON:  # wall_timeout_s: the function's own
            continue
        ann = annotation_text(r)
        if r["default"] is None and r["type"] != "flag":
            ann = f"Optional[{ann}]"
        out.append(f"{r['keyword']}: {ann} = ...")
    return tuple(out)
