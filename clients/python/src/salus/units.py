"""Converting quantity values between HealthKit unit strings ("km", "count/min", "mmol<180.15588>/L").

Used by ``SampleList.to_dataframe(unit=...)``. Statistics need none of it: the daemon answers
them in the unit asked for. The client parses no unit string itself: the daemon of the current
connection describes each one (``salus.v1.Catalogue/DescribeUnits``, once per string per
connection) with its dimension and its size in coherent SI units, and the client computes with
that, as the daemon does. Converting needs an open connection (:func:`salus.connect`).
Temperatures (degC, degF, K) convert as temperatures when they stand alone; dBASPL converts
only alone. A unit string the daemon does not read raises :class:`UnitStringError` with the
daemon's message.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ._proto.salus.v1 import catalogue_pb2

if TYPE_CHECKING:
    from ._catalogue import Catalogue

__all__ = ["convert", "UnitStringError"]

_TEMPERATURE = catalogue_pb2.UNIT_SCALE_TEMPERATURE
_SOUND_PRESSURE_LEVEL = catalogue_pb2.UNIT_SCALE_SOUND_PRESSURE_LEVEL


class UnitStringError(ValueError):
    """A unit string the daemon's parser refuses; the message is the daemon's."""

    def __init__(self, unit: str, problem: catalogue_pb2.UnitProblem) -> None:
        super().__init__(f"unit: {problem.message}")
        #: The unit string as given.
        self.unit = unit
        #: The daemon's stable code ("unknownUnit", "prefixNotAllowed", ...).
        self.code = problem.code
        #: The zero-based offset of the offending part, or None.
        self.position = problem.position if problem.position >= 0 else None
        #: What was expected instead.
        self.expected = problem.expected


def convert(value: float, unit: str, to: str) -> float:
    """``value`` in ``unit``, expressed in ``to``; ValueError names both units when they cannot convert.

    Uses the daemon of the most recently opened connection.
    """
    from ._catalogue import current

    return _convert(current("salus.units.convert"), value, unit, to)


def _meaning(description: catalogue_pb2.UnitDescription) -> catalogue_pb2.UnitMeaning:
    if description.WhichOneof("result") != "meaning":
        raise UnitStringError(description.unit, description.problem)
    return description.meaning


def _scaled(value: float, power: int) -> float:
    """value × 10^power, with one correctly rounded operation when 10^|power| is exact (as the daemon)."""
    if power == 0:
        return value
    factor = float(10 ** abs(power)) if abs(power) <= 22 else math.pow(10, abs(power))
    return value * factor if power > 0 else value / factor


def _convert(catalogue: "Catalogue", value: float, unit: str, to: str) -> float:
    if unit == to:
        return value
    source_description, target_description = catalogue.describe(unit, to)
    source, target = _meaning(source_description), _meaning(target_description)
    if source.canonical == target.canonical:
        return value
    if dict(source.dimension) != dict(target.dimension):
        raise ValueError(
            f"unit: {unit!r} cannot be converted to {to!r}: {source.dimension_text} is not "
            f"{target.dimension_text}; expected units of the same dimension"
        )
    if source.scale == _TEMPERATURE and target.scale == _TEMPERATURE:
        kelvin = value * source.mantissa + source.offset
        return (kelvin - target.offset) / target.mantissa
    if source.scale == _SOUND_PRESSURE_LEVEL:
        pascal = 2e-5 * math.pow(10, value / 20)
        if target.scale == _SOUND_PRESSURE_LEVEL:
            return value
        return _scaled(pascal / target.mantissa, -target.power_of_ten)
    if target.scale == _SOUND_PRESSURE_LEVEL:
        return 20 * math.log10(_scaled(value * source.mantissa, source.power_of_ten) / 2e-5)
    for meaning, text in ((source, unit), (target, to)):
        if meaning.contains_sound_pressure_level:
            raise ValueError(f"unit: {unit!r} cannot be converted to {to!r}: dBASPL converts only alone, not inside {text!r}")
    return _scaled(value * source.mantissa / target.mantissa, source.power_of_ten - target.power_of_ten)
