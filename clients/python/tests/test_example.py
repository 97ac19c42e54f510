"""Examples/python/sleep_report.py on a store filled by SleepDiary (the Swift example app)."""

from __future__ import annotations

import datetime as dt
import sys

import pytest

from conftest import REPOSITORY, Daemon


@pytest.fixture
def diary_daemon():  # type: ignore[no-untyped-def]
    daemon = Daemon()  # a store of its own: only the diary's nights
    yield daemon
    daemon.stop()
    daemon.remove()


def test_sleep_report_prints_weekly_rem_and_deep_for_the_diary_demo(diary_daemon: Daemon) -> None:
    diary = str(diary_daemon.bin / "SleepDiary")
    if not (diary_daemon.bin / "SleepDiary").is_file():
        pytest.fail(f"no SleepDiary in {diary_daemon.bin}; build it (swift build) with the daemon")
    diary_daemon.register("org.example.sleepdiary")
    # The demo saves last night (REM 130 min, deep 100 min), adds a REM sample and deletes it again.
    demo = diary_daemon.ctl("launch", "--app", "org.example.sleepdiary", "--", diary, "demo")
    assert "deleted 1 sample" in demo
    # One more night a week earlier, with 20 more minutes of REM.
    last_evening = dt.date.today() - dt.timedelta(days=1)  # SleepDiary's default night, in local time
    earlier = last_evening - dt.timedelta(days=7)
    diary_daemon.ctl("launch", "--app", "org.example.sleepdiary", "--", diary, "night", "--date", earlier.isoformat(), "--time-zone", "Europe/Paris")
    diary_daemon.ctl(
        "launch", "--app", "org.example.sleepdiary", "--", diary, "add", "--stage", "rem",
        "--start", f"{earlier.isoformat()}T23:10:00+01:00", "--minutes", "20",
    )

    diary_daemon.register("org.example.sleepreport")
    report = diary_daemon.ctl(
        "launch", "--app", "org.example.sleepreport", "--",
        sys.executable, str(REPOSITORY / "Examples/python/sleep_report.py"), "--weeks", "3",
    )
    lines = report.strip().splitlines()
    assert lines[0].split() == ["nights", "REM", "min/night", "deep", "min/night"]
    assert lines[1].split() == ["week", "of"]
    monday = lambda day: day - dt.timedelta(days=day.weekday())  # noqa: E731
    assert [line.split() for line in lines[2:]] == [
        [monday(earlier).isoformat(), "1", "150", "100"],
        [monday(last_evening).isoformat(), "1", "130", "100"],
    ]


def test_the_readme_quickstart_is_the_shipped_example_and_runs_as_written(daemon: Daemon, app: str) -> None:
    readme = (REPOSITORY / "clients/python/README.md").read_text()
    quickstart = readme.split("## Quickstart", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert len(quickstart.strip().splitlines()) == 5
    # The five lines the README shows are the program it runs, after the file's docstring.
    script = REPOSITORY / "Examples/python/quickstart.py"
    assert script.read_text().split('"""', 2)[2].lstrip("\n") == quickstart
    daemon.register(app)
    printed = daemon.ctl("launch", "--app", app, "--", sys.executable, str(script))
    assert float(printed.strip().splitlines()[-1]) >= 1200
