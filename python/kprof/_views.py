"""Typed views of kprof's JSON reports (schema_version 2), read ``from_json`` where the gate and the
MCP tools use them, instead of string keys spread over the code. Only the fields they read are
typed; ``raw`` keeps the whole dict. A missing field reads as its type's empty value; a field of the
wrong type raises ValueError naming it (a damaged report is refused, not half-read)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional


def _get(j: Mapping[str, Any], key: str, kind: type, default: Any) -> Any:
    value = j.get(key, default)
    if value is None:
        return default
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind):
        raise ValueError(f"report field {key!r} is {type(value).__name__}, expected {kind.__name__}")
    return value


@dataclass
class VersionRow:
    """One version of comparison.json ``versions[]`` (kprof run): its status, time and verdict."""

    name: str
    status: str
    correct: bool
    status_reason: Optional[str] = None
    time_ms: Optional[float] = None
    pct_of_bound: Optional[float] = None

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "VersionRow":
        return cls(name=_get(j, "name", str, ""), status=_get(j, "status", str, ""),
                   correct=_get(j, "correct", bool, False), status_reason=_get(j, "status_reason", str, None),
                   time_ms=_get(j, "time_ms", float, None), pct_of_bound=_get(j, "pct_of_bound", float, None))


@dataclass
class GateFailure:
    """One failure of `kprof compare --fail-if-slower`: the version, the input and why."""

    version: str
    input: str
    reason: str


@dataclass
class Gate:
    """comparison.json ``gate`` of kprof compare (None when no --fail-if-slower was given)."""

    fail_if_slower_pct: float
    passed: bool
    failures: List[GateFailure] = field(default_factory=list)

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "Gate":
        fails = [GateFailure(_get(f, "version", str, ""), _get(f, "input", str, ""), _get(f, "reason", str, ""))
                 for f in _get(j, "failures", list, [])]
        return cls(_get(j, "fail_if_slower_pct", float, 0.0), _get(j, "passed", bool, False), fails)


@dataclass
class RunReport:
    """comparison.json of ``kprof run``: its versions in order."""

    versions: List[VersionRow]
    raw: Dict[str, Any]

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "RunReport":
        return cls([VersionRow.from_json(v) for v in _get(j, "versions", list, [])], dict(j))


@dataclass
class CompareReport:
    """comparison.json of ``kprof compare``: the gate (None without --fail-if-slower) and exit code."""

    gate: Optional[Gate]
    exit_code: int
    raw: Dict[str, Any]

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "CompareReport":
        gate = j.get("gate")
        return cls(Gate.from_json(gate) if isinstance(gate, Mapping) else None, _get(j, "exit_code", int, 0), dict(j))


@dataclass
class CallVerdict:
    """profile.json / analysis.json ``call``: the class, limiter, bound and ranked findings."""

    cls: Optional[str]
    limiter: Optional[str]
    bound: Any
    findings: List[Dict[str, Any]]

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "CallVerdict":
        call = _get(j, "call", dict, {})
        return cls(_get(call, "class", str, None), _get(call, "limiter", str, None), call.get("bound"),
                   _get(call, "findings", list, []))
