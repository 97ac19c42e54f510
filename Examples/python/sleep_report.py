#!/usr/bin/env python3
"""Average nightly REM and deep sleep per week, as a table, from Salus with pandas.

    salusctl apps add org.example.sleepreport --name "Sleep report" \\
        --read-usage "Shows your REM and deep sleep per week"
    salusctl launch --app org.example.sleepreport -- python3 Examples/python/sleep_report.py [--weeks 8]

The first run asks to read sleep analysis (answer with `salusctl consent`). A night is the
evening it began: each stage counts for the date 12 hours before its start, in the sample's own
time zone (its HKTimeZone metadata, else this machine's). Weeks start on Monday; the averages
are over the nights in the week that have REM or deep sleep.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from zoneinfo import ZoneInfo

import pandas as pd

import salus
from salus import SleepAnalysis, predicates

STAGES = {SleepAnalysis.ASLEEP_REM: "REM", SleepAnalysis.ASLEEP_DEEP: "deep"}


async def fetch(weeks: int, socket: str | None) -> salus.SampleList:
    now = dt.datetime.now().astimezone()
    # Up to noon tomorrow: a night counts for the evening it began, so tonight's ends before
    # then, and a night under way (it is 2 a.m. and stages after now are already entered)
    # counts whole rather than cut at this minute.
    end = dt.datetime.combine((now + dt.timedelta(days=1)).date(), dt.time(12), tzinfo=now.tzinfo)
    async with salus.connect(socket, app_name="Sleep report", app_version="1.0") as store:
        await store.request_authorization(read=["sleepAnalysis"])
        return await store.samples(
            "sleepAnalysis",
            start=now - dt.timedelta(weeks=weeks),
            end=end,
            predicate=predicates.category_values(*STAGES),
        )


def weekly(samples: salus.SampleList) -> pd.DataFrame:
    frame = samples.to_dataframe()
    local = dt.datetime.now().astimezone().tzinfo
    frame["night"] = [
        (start.tz_convert(ZoneInfo(zone) if zone else local) - pd.Timedelta(hours=12)).date()
        for start, zone in zip(frame["start"], frame["time_zone"].fillna(""))
    ]
    frame["stage"] = frame["value"].map(lambda value: STAGES[SleepAnalysis(value)])
    frame["minutes"] = (frame["end"] - frame["start"]).dt.total_seconds() / 60
    nights = frame.pivot_table(index="night", columns="stage", values="minutes", aggfunc="sum", fill_value=0.0)
    nights = nights.reindex(columns=list(STAGES.values()), fill_value=0.0)
    nights["week of"] = [night - dt.timedelta(days=night.weekday()) for night in nights.index]
    table = nights.groupby("week of").agg(
        nights=("REM", "size"), rem=("REM", "mean"), deep=("deep", "mean")
    )
    return table.rename(columns={"rem": "REM min/night", "deep": "deep min/night"})


def main() -> int:
    parser = argparse.ArgumentParser(description="Average nightly REM and deep sleep per week.")
    parser.add_argument("--weeks", type=int, default=8, help="how many weeks back (default 8)")
    parser.add_argument("--socket", help="the app socket (default: $SALUS_SOCKET, else the default)")
    arguments = parser.parse_args()
    if arguments.weeks < 1:
        parser.error(f"--weeks: {arguments.weeks} is not valid; expected at least 1")
    try:
        samples = asyncio.run(fetch(arguments.weeks, arguments.socket))
    except salus.SalusError as error:
        print(f"sleep_report: {error.message}", file=sys.stderr)
        return 1
    if not samples:
        print(f"no REM or deep sleep in the last {arguments.weeks} weeks")
        return 0
    print(weekly(samples).to_string(float_format=lambda minutes: f"{minutes:.0f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
