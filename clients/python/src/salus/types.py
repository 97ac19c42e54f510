"""Sample types: HealthKit identifiers, with short names ("stepCount"), and category values."""

from __future__ import annotations

import enum

from ._catalogue import _current_types

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


def identifier(name: str) -> str:
    """The full identifier for ``name``: an identifier as it is, or a short name of a type the daemon has.

    ``identifier("stepCount")`` is ``"HKQuantityTypeIdentifierStepCount"`` (case-insensitive);
    ``identifier("org.example.migraine")`` is returned unchanged. Short names are resolved with
    the types of the daemon of the most recently opened connection (``salus.v1.Catalogue``,
    read once per connection); without a connection only identifiers are accepted. Raises
    ValueError for a short name that names no sample type of the daemon.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"type: {name!r} is not valid; expected an identifier or a short name such as 'stepCount'")
    if name.startswith("HK") or "." in name:
        return name
    by_short_name = _current_types(f"the short type name {name!r}")
    found = by_short_name.get(name.lower())
    if found is None:
        near = sorted(short_name(i) for i in by_short_name.values() if name.lower() in i.lower())[:5]
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise ValueError(
            f"type: {name!r} is not a known short name; expected a HealthKit identifier "
            f"or a short name such as 'stepCount' or 'sleepAnalysis'{hint}"
        )
    return found


def _identifier_if_known(name: str) -> str:
    """``identifier(name)`` once a connection has read the daemon's types; before, ``name`` as given
    (a sample made before connecting is resolved when it is saved)."""
    from . import _catalogue

    if _catalogue._current is None and isinstance(name, str) and name:
        return name
    return identifier(name)


class SleepAnalysis(enum.IntEnum):
    """HKCategoryValueSleepAnalysis raw values (the values of ``sleepAnalysis`` samples)."""

    IN_BED = 0
    ASLEEP_UNSPECIFIED = 1
    AWAKE = 2
    ASLEEP_CORE = 3
    ASLEEP_DEEP = 4
    ASLEEP_REM = 5
