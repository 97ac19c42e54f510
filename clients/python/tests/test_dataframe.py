"""to_dataframe: dtypes, time zones and units."""

from __future__ import annotations

import datetime as dt

import pandas as pd

import salus
from salus import SleepAnalysis

UTC = dt.timezone.utc


async def test_samples_frame_has_typed_columns_and_aware_times(store: salus.Store, app: str) -> None:
    await store.request_authorization(share=["distanceWalkingRunning", "sleepAnalysis"], read=["distanceWalkingRunning", "sleepAnalysis"])
    start = dt.datetime(2026, 7, 1, 22, 0, tzinfo=UTC)  # summer: Paris is UTC+2
    await store.save([
        salus.Sample.quantity("distanceWalkingRunning", 1.5, "km", start, start + dt.timedelta(minutes=20)),
        salus.Sample.quantity("distanceWalkingRunning", 800, "m", start + dt.timedelta(hours=1), start + dt.timedelta(hours=1, minutes=10)),
    ])
    distances = await store.samples("distanceWalkingRunning", predicate=salus.predicates.sources(app))
    frame = distances.to_dataframe(tz="Europe/Paris", unit="m")
    assert {name: str(dtype) for name, dtype in frame.dtypes.items()} == {
        "uuid": "string", "type": "string", "start": "datetime64[us, Europe/Paris]", "end": "datetime64[us, Europe/Paris]",
        "value": "float64", "unit": "string", "source": "string", "device": "string", "time_zone": "string",
    }
    assert frame["start"].iloc[0] == pd.Timestamp("2026-07-02 00:00", tz="Europe/Paris")
    assert frame["start"].iloc[0] == pd.Timestamp(start)  # the same instant
    assert frame["value"].tolist() == [1500.0, 800.0] and set(frame["unit"]) == {"m"}
    assert set(frame["source"]) == {app}
    in_utc = distances.to_dataframe()
    assert str(in_utc["end"].dtype) == "datetime64[us, UTC]" and in_utc["start"].iloc[0].hour == 22

    await store.save(salus.Sample.category("sleepAnalysis", SleepAnalysis.ASLEEP_DEEP, start, start + dt.timedelta(hours=1), metadata={"HKTimeZone": "Europe/Paris"}))
    sleep = (await store.samples("sleepAnalysis", predicate=salus.predicates.sources(app))).to_dataframe()
    assert str(sleep["value"].dtype) == "Int64" and sleep["value"].tolist() == [4]
    assert sleep["time_zone"].tolist() == ["Europe/Paris"] and sleep["unit"].isna().all()


def test_an_empty_list_gives_an_empty_frame_with_the_columns() -> None:
    frame = salus.SampleList().to_dataframe(tz="America/New_York")
    assert len(frame) == 0 and str(frame["start"].dtype) == "datetime64[us, America/New_York]"
