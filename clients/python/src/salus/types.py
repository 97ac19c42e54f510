"""Sample types: HealthKit identifiers, with short names ("stepCount"), and category values."""

from __future__ import annotations

import enum

from ._identifiers import BUNDLED_IDENTIFIERS

__all__ = ["identifier", "short_name", "SleepAnalysis"]


def short_name(identifier: str) -> str:
    """The short name of a HealthKit identifier, as salusctl shows it.

    ``HKQuantityTypeIdentifierStepCount`` is ``stepCount``, ``HKWorkoutTypeIdentifier`` is
    ``workout``; a reverse-DNS identifier is its own short name.
    """
    marker = "TypeIdentifier"
    if identifier.startswith("HK") and marker in identifier:
        before, _, after = identifier.partition(marker)
        name = after or before[2:]
        return name[:1].lower() + name[1:]
    return identifier


_BY_SHORT_NAME: dict[str, str] = {short_name(i).lower(): i for i in BUNDLED_IDENTIFIERS}


def identifier(name: str) -> str:
    """The full identifier for ``name``: an identifier as it is, or a short name of a bundled type.

    ``identifier("stepCount")`` is ``"HKQuantityTypeIdentifierStepCount"`` (case-insensitive);
    ``identifier("org.example.migraine")`` is returned unchanged. Raises ValueError for a short
    name that names no bundled type.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"type: {name!r} is not valid; expected an identifier or a short name such as 'stepCount'")
    if name.startswith("HK") or "." in name:
        return name
    found = _BY_SHORT_NAME.get(name.lower())
    if found is None:
        near = sorted(short_name(i) for i in BUNDLED_IDENTIFIERS if name.lower() in i.lower())[:5]
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise ValueError(
            f"type: {name!r} is not a known short name; expected a HealthKit identifier "
            f"or a short name such as 'stepCount' or 'sleepAnalysis'{hint}"
        )
    return found


class SleepAnalysis(enum.IntEnum):
    """HKCategoryValueSleepAnalysis raw values (the values of ``sleepAnalysis`` samples)."""

    IN_BED = 0
    ASLEEP_UNSPECIFIED = 1
    AWAKE = 2
    ASLEEP_CORE = 3
    ASLEEP_DEEP = 4
    ASLEEP_REM = 5
