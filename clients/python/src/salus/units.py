"""Converting quantity values between HealthKit unit strings ("km", "count/min", "mmol<180.15588>/L").

Used by ``SampleList.to_dataframe(unit=...)``. Statistics need none of it: the daemon answers
them in the unit asked for. The grammar is HealthKit's, as the daemon parses it: an optional SI
prefix on the units that take one, products with ``*``, ``·`` or ``.``, one ``/`` per
parenthesised group (``kcal/hr·kg`` is kcal per hour-kilogram), powers with ``^``, molar units
with their molar mass in angle brackets. The units, prefixes, spellings, dimensions and scales
are the daemon's own (``salus.v1.Catalogue``), read once per connection: converting needs an
open connection (:func:`salus.connect`). Temperatures (degC, degF, K) convert as temperatures
when they stand alone; dBASPL converts only alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ._proto.salus.v1 import catalogue_pb2

if TYPE_CHECKING:
    from ._catalogue import Catalogue

__all__ = ["convert"]

_LINEAR = catalogue_pb2.UNIT_SCALE_LINEAR
_TEMPERATURE = catalogue_pb2.UNIT_SCALE_TEMPERATURE
_SOUND_PRESSURE_LEVEL = catalogue_pb2.UNIT_SCALE_SOUND_PRESSURE_LEVEL
_NAME_CHARACTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_%\u00b5\u03bc")
_MAX_NESTING = 16


def convert(value: float, unit: str, to: str) -> float:
    """``value`` in ``unit``, expressed in ``to``; ValueError names both units when they cannot convert.

    Uses the units of the daemon of the most recently opened connection.
    """
    from ._catalogue import current

    return _convert(current("salus.units.convert"), value, unit, to)


@dataclass
class _Factor:
    power_of_ten: int  # the prefix's
    symbol: catalogue_pb2.UnitSymbol
    molar_mass: Optional[float]
    exponent: int


class _Parser:
    def __init__(self, catalogue: "Catalogue", text: str) -> None:
        self.catalogue = catalogue
        self.text = text
        self.index = 0
        self.depth = 0

    def fail(self, problem: str) -> ValueError:
        return ValueError(f"unit: {self.text!r} {problem}; expected a HealthKit unit string such as 'kg', 'count/min' or 'mmol<180.15588>/L'")

    @property
    def current(self) -> Optional[str]:
        return self.text[self.index] if self.index < len(self.text) else None

    def parse(self) -> list[_Factor]:
        if not self.text:
            raise self.fail("is empty")
        factors = self.quotient()
        if self.current is not None:
            raise self.fail(f"has {self.current!r} at position {self.index}")
        return factors

    def quotient(self) -> list[_Factor]:
        factors = self.product()
        if self.current == "/":
            self.index += 1
            factors += [_Factor(f.power_of_ten, f.symbol, f.molar_mass, -f.exponent) for f in self.product()]
            if self.current == "/":
                raise self.fail(f"has a second '/' at position {self.index} (use parentheses)")
        return factors

    def product(self) -> list[_Factor]:
        factors = self.power()
        while self.current in ("*", "\u00b7", "."):
            self.index += 1
            factors += self.power()
        return factors

    def power(self) -> list[_Factor]:
        factors = self.primary()
        if self.current == "^":
            self.index += 1
            start = self.index
            if self.current in ("-", "+"):
                self.index += 1
            while self.current is not None and self.current.isascii() and self.current.isdigit():
                self.index += 1
            digits = self.text[start:self.index].lstrip("+-")
            if not digits or len(digits) > 4:
                raise self.fail(f"has an invalid exponent at position {start}")
            power = int(self.text[start:self.index])
            factors = [_Factor(f.power_of_ten, f.symbol, f.molar_mass, f.exponent * power) for f in factors]
        return factors

    def primary(self) -> list[_Factor]:
        if self.current is None:
            raise self.fail("ends where a unit was expected")
        if self.current == "(":
            if self.depth >= _MAX_NESTING:
                raise self.fail(f"nests parentheses more than {_MAX_NESTING} deep")
            open_at = self.index
            self.depth += 1
            self.index += 1
            inner = self.quotient()
            if self.current != ")":
                raise self.fail(f"does not close the '(' at position {open_at}")
            self.index += 1
            self.depth -= 1
            return inner
        if self.current in _NAME_CHARACTERS:
            return [self.symbol()]
        raise self.fail(f"has {self.current!r} at position {self.index}")

    def symbol(self) -> _Factor:
        start = self.index
        while self.current is not None and self.current in _NAME_CHARACTERS:
            self.index += 1
        name = self.text[start:self.index]
        power_of_ten, symbol = self.resolve(name)
        molar_mass = None
        if self.current == "<":
            if symbol.symbol != "mol":
                raise self.fail(f"has a molar mass after {name!r}; only mol takes one")
            end = self.text.find(">", self.index)
            if end < 0:
                raise self.fail("does not close its '<'")
            try:
                molar_mass = float(self.text[self.index + 1:end])
            except ValueError:
                molar_mass = math.nan
            if not math.isfinite(molar_mass) or molar_mass <= 0:
                raise self.fail("has an invalid molar mass")
            molar_mass = float(f"{molar_mass:.16g}")  # as the daemon keeps it
            self.index = end + 1
        return _Factor(power_of_ten, symbol, molar_mass, 1)

    def resolve(self, name: str) -> tuple[int, catalogue_pb2.UnitSymbol]:
        symbols = self.catalogue.symbols
        if name in symbols:
            return 0, symbols[name]
        for spelling, power_of_ten in self.catalogue.prefixes:
            if name.startswith(spelling) and name[len(spelling):] in symbols:
                symbol = symbols[name[len(spelling):]]
                if not symbol.takes_prefix:
                    raise self.fail(f"puts the prefix {spelling!r} on {symbol.symbol!r}, which takes none")
                return power_of_ten, symbol
        raise ValueError(f"unit: {self.text!r} is not a unit the daemon knows ({name!r}); expected a HealthKit unit string")


def _parse(catalogue: "Catalogue", unit: str) -> list[_Factor]:
    return _Parser(catalogue, unit).parse()


def _dimension(factors: list[_Factor]) -> dict[str, int]:
    dimension: dict[str, int] = {}
    for factor in factors:
        base = {"mass": 1} if factor.molar_mass is not None else dict(factor.symbol.dimension)
        for name, power in base.items():
            dimension[name] = dimension.get(name, 0) + power * factor.exponent
    return {name: power for name, power in dimension.items() if power}


def _scale(factors: list[_Factor]) -> tuple[float, int]:
    """The size of the unit in coherent SI units, as mantissa × 10^power, as the daemon computes it."""
    mantissa, power_of_ten = 1.0, 0
    for factor in factors:
        factor_power = factor.power_of_ten
        if factor.molar_mass is not None:
            factor_mantissa = factor.molar_mass
            factor_power -= 3
        elif factor.symbol.scale == _LINEAR:
            factor_mantissa = factor.symbol.mantissa
            factor_power += factor.symbol.power_of_ten
        elif factor.symbol.scale == _TEMPERATURE:
            factor_mantissa = factor.symbol.mantissa
        else:
            factor_mantissa = 1.0
        raised = 1.0
        for _ in range(abs(factor.exponent)):
            raised *= factor_mantissa
        mantissa = mantissa * raised if factor.exponent > 0 else mantissa / raised
        power_of_ten += factor_power * factor.exponent
    return mantissa, power_of_ten


def _scaled(value: float, power: int) -> float:
    if power == 0:
        return value
    factor = float(10 ** abs(power)) if abs(power) <= 22 else math.pow(10, abs(power))
    return value * factor if power > 0 else value / factor


def _bare(factors: list[_Factor]) -> Optional[catalogue_pb2.UnitSymbol]:
    if len(factors) == 1 and factors[0].exponent == 1 and factors[0].power_of_ten == 0:
        return factors[0].symbol
    return None


def _convert(catalogue: "Catalogue", value: float, unit: str, to: str) -> float:
    if unit == to:
        return value
    source, target = _parse(catalogue, unit), _parse(catalogue, to)
    if _dimension(source) != _dimension(target):
        raise ValueError(f"unit: {unit!r} cannot be converted to {to!r}; expected units of the same dimension")
    bare_source, bare_target = _bare(source), _bare(target)
    if bare_source is not None and bare_target is not None and bare_source.scale == _TEMPERATURE and bare_target.scale == _TEMPERATURE:
        kelvin = value * bare_source.mantissa + bare_source.offset
        return (kelvin - bare_target.offset) / bare_target.mantissa
    if bare_source is not None and bare_source.scale == _SOUND_PRESSURE_LEVEL:
        pascal = 2e-5 * math.pow(10, value / 20)
        if bare_target is not None and bare_target.scale == _SOUND_PRESSURE_LEVEL:
            return value
        mantissa, power = _scale(target)
        return _scaled(pascal / mantissa, -power)
    if bare_target is not None and bare_target.scale == _SOUND_PRESSURE_LEVEL:
        mantissa, power = _scale(source)
        return 20 * math.log10(_scaled(value * mantissa, power) / 2e-5)
    for factors, text in ((source, unit), (target, to)):
        if any(f.symbol.scale == _SOUND_PRESSURE_LEVEL for f in factors):
            raise ValueError(f"unit: {unit!r} cannot be converted to {to!r}: dBASPL converts only alone, not inside {text!r}")
    source_mantissa, source_power = _scale(source)
    target_mantissa, target_power = _scale(target)
    return _scaled(value * source_mantissa / target_mantissa, source_power - target_power)
