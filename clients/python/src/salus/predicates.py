"""Predicates that narrow a query, composable with ``&``, ``|`` and ``~``.

``salus.predicates.category_values(SleepAnalysis.ASLEEP_REM) & salus.predicates.sources("org.example.diary")``
Each function returns a :class:`Predicate`; queries also take a ``salus.v1.Predicate`` message.
"""

from __future__ import annotations

import datetime as _dt
import uuid as _uuid
from typing import Iterable, Optional, Union

from ._proto.salus.v1 import predicates_pb2, samples_pb2
from ._time import to_micros

__all__ = [
    "Predicate",
    "date",
    "category_values",
    "sources",
    "uuids",
    "metadata_exists",
    "metadata_equals",
    "quantity",
    "all_of",
    "any_of",
]


class Predicate:
    """A predicate tree; ``wire`` is its ``salus.v1.Predicate``."""

    def __init__(self, wire: predicates_pb2.Predicate) -> None:
        self.wire = wire

    def __and__(self, other: "Predicate") -> "Predicate":
        return all_of(self, other)

    def __or__(self, other: "Predicate") -> "Predicate":
        return any_of(self, other)

    def __invert__(self) -> "Predicate":
        wire = predicates_pb2.Predicate()
        getattr(wire, "not").CopyFrom(self.wire)
        return Predicate(wire)

    def __repr__(self) -> str:
        return f"Predicate({self.wire})"


PredicateLike = Union[Predicate, predicates_pb2.Predicate]


def wire(predicate: Optional[PredicateLike]) -> Optional[predicates_pb2.Predicate]:
    """The message of a Predicate or a message, None for None."""
    if predicate is None:
        return None
    if isinstance(predicate, Predicate):
        return predicate.wire
    if isinstance(predicate, predicates_pb2.Predicate):
        return predicate
    raise TypeError(f"predicate: {predicate!r} is not a predicate; expected salus.predicates.* or a salus.v1.Predicate")


def date(
    start: Optional[_dt.datetime] = None,
    end: Optional[_dt.datetime] = None,
    *,
    strict_start: bool = False,
    strict_end: bool = False,
) -> Predicate:
    """Samples overlapping [start, end) (HealthKit's predicateForSamples); strict: start or end inside it."""
    window = predicates_pb2.DateWindow(strict_start_date=strict_start, strict_end_date=strict_end)
    if start is not None:
        window.start_date = to_micros(start, "start")
    if end is not None:
        window.end_date = to_micros(end, "end")
    return Predicate(predicates_pb2.Predicate(date_window=window))


def category_values(*values: int, groups: Iterable[str] = ()) -> Predicate:
    """Category samples with one of these raw values or in a plugin's value group ("allAsleep")."""
    return Predicate(
        predicates_pb2.Predicate(
            category_values=predicates_pb2.CategoryValuesPredicate(values=[int(v) for v in values], value_groups=list(groups))
        )
    )


def sources(*app_ids: str) -> Predicate:
    """Samples saved by any of these apps."""
    return Predicate(predicates_pb2.Predicate(sources=predicates_pb2.SourcesPredicate(app_ids=list(app_ids))))


def uuids(*values: _uuid.UUID) -> Predicate:
    """The samples with these UUIDs."""
    return Predicate(predicates_pb2.Predicate(uuids=predicates_pb2.UUIDsPredicate(uuids=[u.bytes for u in values])))


def metadata_exists(key: str) -> Predicate:
    """Samples that have the metadata key."""
    return Predicate(predicates_pb2.Predicate(metadata=predicates_pb2.MetadataPredicate(key=key, exists=True)))


def metadata_equals(key: str, value: Union[str, float, bool]) -> Predicate:
    """Samples whose metadata ``key`` is ``value``."""
    metadata_value = samples_pb2.MetadataValue()
    if isinstance(value, bool):
        metadata_value.bool_value = value
    elif isinstance(value, (int, float)):
        metadata_value.number_value = float(value)
    else:
        metadata_value.string_value = str(value)
    return Predicate(
        predicates_pb2.Predicate(
            metadata=predicates_pb2.MetadataPredicate(
                key=key, allowed_values=predicates_pb2.MetadataValues(values=[metadata_value])
            )
        )
    )


_OPERATORS = {
    "<": predicates_pb2.COMPARISON_OPERATOR_LESS_THAN,
    "<=": predicates_pb2.COMPARISON_OPERATOR_LESS_THAN_OR_EQUAL,
    "==": predicates_pb2.COMPARISON_OPERATOR_EQUAL,
    ">=": predicates_pb2.COMPARISON_OPERATOR_GREATER_THAN_OR_EQUAL,
    ">": predicates_pb2.COMPARISON_OPERATOR_GREATER_THAN,
    "!=": predicates_pb2.COMPARISON_OPERATOR_NOT_EQUAL,
}


def quantity(operator: str, value: float, unit: str) -> Predicate:
    """Quantity samples comparing to ``value`` in ``unit``: ``quantity(">=", 100, "count/min")``."""
    if operator not in _OPERATORS:
        raise ValueError(f"operator: {operator!r} is not valid; expected one of {', '.join(_OPERATORS)}")
    return Predicate(
        predicates_pb2.Predicate(
            quantity=predicates_pb2.QuantityPredicate(
                operator=_OPERATORS[operator], quantity=samples_pb2.Quantity(value=float(value), unit=unit)
            )
        )
    )


def all_of(*predicates: PredicateLike) -> Predicate:
    """Samples matching every predicate."""
    items = [w for w in (wire(p) for p in predicates) if w is not None]
    return Predicate(predicates_pb2.Predicate(**{"and": predicates_pb2.PredicateList(predicates=items)}))


def any_of(*predicates: PredicateLike) -> Predicate:
    """Samples matching any predicate."""
    items = [w for w in (wire(p) for p in predicates) if w is not None]
    return Predicate(predicates_pb2.Predicate(**{"or": predicates_pb2.PredicateList(predicates=items)}))


def combine(
    start: Optional[_dt.datetime], end: Optional[_dt.datetime], predicate: Optional[PredicateLike]
) -> Optional[predicates_pb2.Predicate]:
    """``start``/``end`` as a date window, and-ed with ``predicate``; None when there is nothing."""
    parts: list[predicates_pb2.Predicate] = []
    if start is not None or end is not None:
        parts.append(date(start, end).wire)
    given = wire(predicate)
    if given is not None:
        parts.append(given)
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return all_of(*parts).wire
