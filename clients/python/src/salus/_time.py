"""Dates on the wire are microseconds since the Unix epoch (UTC)."""

from __future__ import annotations

import datetime as _dt

EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MICROSECOND = _dt.timedelta(microseconds=1)


def to_micros(value: "_dt.datetime | _dt.date", name: str) -> int:
    """Microseconds since the epoch; a naive datetime (or a date) is local time, as datetime.timestamp() takes it."""
    if isinstance(value, _dt.datetime):
        moment = value if value.tzinfo is not None else value.astimezone()
    elif isinstance(value, _dt.date):
        moment = _dt.datetime(value.year, value.month, value.day).astimezone()
    else:
        raise TypeError(f"{name}: {value!r} is not a date; expected a datetime (timezone-aware, or naive for local time)")
    return (moment - EPOCH) // _MICROSECOND


def from_micros(value: int) -> _dt.datetime:
    """A timezone-aware datetime in UTC."""
    return EPOCH + _dt.timedelta(microseconds=value)
