"""Converting quantity values between HealthKit unit strings ("km", "count/min", "mmol<180.15588>/L").

Used by ``SampleList.to_dataframe(unit=...)``. Statistics need none of it: the daemon answers
them in the unit asked for. The grammar is HealthKit's: SI prefixes (p, n, mc, m, c, d, da, h,
k, M, G, T) on metric units, products with ``·``, one ``/`` whose right side is the
denominator (``kcal/hr·kg`` is kcal per hour-kilogram; parentheses allowed), powers with ``^``,
molar units with their molar mass in angle brackets. Temperatures (degC, degF, K) convert as
temperatures when they stand alone.
"""

from __future__ import annotations

import re

__all__ = ["convert"]

# name: (factor to the dimension's base unit, dimension, takes SI prefixes)
_UNITS: dict[str, tuple[float, str, bool]] = {
    "g": (1.0, "mass", True),
    "oz": (28.349523125, "mass", False),
    "lb": (453.59237, "mass", False),
    "st": (6350.29318, "mass", False),
    "m": (1.0, "length", True),
    "in": (0.0254, "length", False),
    "ft": (0.3048, "length", False),
    "yd": (0.9144, "length", False),
    "mi": (1609.344, "length", False),
    "L": (1.0, "volume", True),
    "fl_oz_us": (0.0295735295625, "volume", False),
    "fl_oz_imp": (0.0284130625, "volume", False),
    "cup_us": (0.2365882365, "volume", False),
    "cup_imp": (0.284130625, "volume", False),
    "pt_us": (0.473176473, "volume", False),
    "pt_imp": (0.56826125, "volume", False),
    "s": (1.0, "time", True),
    "min": (60.0, "time", False),
    "hr": (3600.0, "time", False),
    "d": (86400.0, "time", False),
    "J": (1.0, "energy", True),
    "cal": (4.184, "energy", True),
    "Cal": (4184.0, "energy", False),
    "W": (1.0, "power", True),
    "Pa": (1.0, "pressure", True),
    "mmHg": (133.322387415, "pressure", False),
    "cmAq": (98.0665, "pressure", False),
    "inHg": (3386.389, "pressure", False),
    "atm": (101325.0, "pressure", False),
    "count": (1.0, "count", False),
    "%": (0.01, "", False),
    "Hz": (1.0, "frequency", True),
    "V": (1.0, "voltage", True),
    "S": (1.0, "conductance", True),
    "IU": (1.0, "IU", False),
    "dBASPL": (1.0, "dBASPL", False),
    "dBHL": (1.0, "dBHL", False),
    "lx": (1.0, "illuminance", True),
    "diopter": (1.0, "diopter", False),
    "prismDiopter": (1.0, "prismDiopter", False),
    "deg": (1.0, "angle", False),
    "rad": (57.29577951308232, "angle", False),
    "appleEffortScore": (1.0, "appleEffortScore", False),
}
_PREFIXES = {
    "p": 1e-12, "n": 1e-9, "mc": 1e-6, "m": 1e-3, "c": 1e-2, "d": 1e-1,
    "da": 1e1, "h": 1e2, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
}
_TEMPERATURES = {"K": (1.0, 0.0), "degC": (1.0, 273.15), "degF": (5.0 / 9.0, 273.15 - 32.0 * 5.0 / 9.0)}
_MOLAR = re.compile(r"^(p|n|mc|m|c|d|da|h|k|M|G|T)?mol<([0-9.]+)>$")
_POWER = re.compile(r"^(.+?)\^(-?[0-9]+)$")


def _term(text: str, unit: str) -> tuple[float, dict[str, int]]:
    power = 1
    match = _POWER.match(text)
    if match:
        text, power = match.group(1), int(match.group(2))
    molar = _MOLAR.match(text)
    if molar:
        factor = _PREFIXES.get(molar.group(1) or "", 1.0) * float(molar.group(2))
        return factor**power, {"mass": power}
    if text in _UNITS:
        factor, dimension, _ = _UNITS[text]
    else:
        for prefix in sorted(_PREFIXES, key=len, reverse=True):
            base = text[len(prefix):]
            if text.startswith(prefix) and base in _UNITS and _UNITS[base][2]:
                factor = _PREFIXES[prefix] * _UNITS[base][0]
                dimension = _UNITS[base][1]
                break
        else:
            raise ValueError(f"unit: {unit!r} is not a unit this client converts ({text!r}); expected a HealthKit unit string")
    return factor**power, ({dimension: power} if dimension else {})


def _parse(unit: str) -> tuple[float, dict[str, int]]:
    text = unit.replace("(", "").replace(")", "").replace("*", "·")
    numerator, _, denominator = text.partition("/")
    factor, dimensions = 1.0, {}  # type: float, dict[str, int]
    for sign, part in ((1, numerator), (-1, denominator.replace("/", "·"))):
        for term in filter(None, part.split("·")):
            term_factor, term_dimensions = _term(term, unit)
            factor = factor * term_factor**sign
            for name, power in term_dimensions.items():
                dimensions[name] = dimensions.get(name, 0) + sign * power
    return factor, {name: power for name, power in dimensions.items() if power}


def convert(value: float, unit: str, to: str) -> float:
    """``value`` in ``unit``, expressed in ``to``; ValueError names both units when they cannot convert."""
    if unit == to:
        return value
    if unit in _TEMPERATURES or to in _TEMPERATURES:
        if unit in _TEMPERATURES and to in _TEMPERATURES:
            scale, offset = _TEMPERATURES[unit]
            kelvin = value * scale + offset
            scale, offset = _TEMPERATURES[to]
            return (kelvin - offset) / scale
        raise ValueError(f"unit: {unit!r} cannot be converted to {to!r}; expected units of the same dimension")
    from_factor, from_dimensions = _parse(unit)
    to_factor, to_dimensions = _parse(to)
    if from_dimensions != to_dimensions:
        raise ValueError(f"unit: {unit!r} cannot be converted to {to!r}; expected units of the same dimension")
    return value * from_factor / to_factor
