"""DataFrames of samples and statistics (pandas is the optional extra ``salus-client[pandas]``)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .model import Sample, Statistics


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError(
            "to_dataframe needs pandas: pip install 'salus-client[pandas]'"
        ) from None
    return pandas


def _times(pd: Any, values: Sequence[Any], tz: str) -> Any:
    # Built in UTC from aware datetimes, then shown in the zone asked for.
    index = pd.DatetimeIndex(pd.to_datetime(list(values), utc=True), dtype="datetime64[us, UTC]")
    return index.tz_convert(tz)


def samples_frame(samples: list[Sample], *, tz: Optional[str], unit: Optional[str]) -> Any:
    pd = _pandas()
    zone = tz or "UTC"
    values: list[Any] = []
    units: list[Any] = []
    for sample in samples:
        if unit is not None and sample.kind == "quantity" and sample.value is not None and sample.unit != unit:
            from .units import convert

            values.append(convert(sample.value, sample.unit or "", unit))
            units.append(unit)
        else:
            values.append(sample.value)
            units.append(sample.unit)
    categorical = bool(samples) and all(s.kind == "category" for s in samples)
    frame = pd.DataFrame(
        {
            "uuid": pd.Series([str(s.uuid) if s.uuid else None for s in samples], dtype="string"),
            "type": pd.Series([s.type for s in samples], dtype="string"),
            "start": _times(pd, [s.start for s in samples], zone),
            "end": _times(pd, [s.end for s in samples], zone),
            "value": pd.Series(values, dtype="Int64" if categorical else "float64"),
            "unit": pd.Series(units, dtype="string"),
            "source": pd.Series([s.source.app_id if s.source else None for s in samples], dtype="string"),
            "device": pd.Series([s.device.name if s.device else None for s in samples], dtype="string"),
            "time_zone": pd.Series([s.time_zone for s in samples], dtype="string"),
        }
    )
    return frame


def statistics_frame(statistics: list[Statistics], *, tz: str) -> Any:
    pd = _pandas()
    columns: dict[str, Any] = {
        "start": _times(pd, [s.start for s in statistics], tz),
        "end": _times(pd, [s.end for s in statistics], tz),
    }
    for name in ("sum", "average", "minimum", "maximum", "most_recent", "duration"):
        columns[name] = pd.Series([getattr(s, name) for s in statistics], dtype="float64")
    columns["unit"] = pd.Series([s.unit for s in statistics], dtype="string")
    columns["sources"] = pd.Series([",".join(s.sources) for s in statistics], dtype="string")
    return pd.DataFrame(columns)
