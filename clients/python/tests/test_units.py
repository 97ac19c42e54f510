"""The client converts units with the daemon's table, read once per connection, and gets the
same figures as the daemon for every unit `salusctl units list` knows."""

from __future__ import annotations

import json
import math

import pytest

import salus
from salus import _catalogue

from conftest import Daemon


async def test_every_unit_the_daemon_knows_converts_the_same_in_python(daemon: Daemon, store: salus.Store) -> None:
    listing = json.loads(daemon.ctl("units", "list", "--json"))
    units = listing["units"]
    names = {unit["unit"] for unit in units}
    # The units the client's own copy refused, and a type's compound canonical unit.
    assert {"D", "ml", "fL", "µg", "μg", "mcg", "kcal", "degF", "dBASPL", "count/min"} <= names
    assert len(units) > 200
    mismatches = []
    for unit in units:
        for value, daemon_figure in ((1.0, unit.get("one", 0.0)), (37.5, unit.get("thirtySevenAndAHalf", 0.0))):
            python_figure = salus.units.convert(value, unit["unit"], unit["referenceUnit"])
            if not math.isclose(python_figure, daemon_figure, rel_tol=1e-12, abs_tol=0.0):
                mismatches.append((value, unit["unit"], unit["referenceUnit"], python_figure, daemon_figure))
    assert mismatches == []
    # The store converts with the same table.
    assert store.convert(1, "ml", "L") == 0.001 and store.convert(2, "µg", "mcg") == 2.0


async def test_the_catalogue_is_read_once_per_connection_and_names_the_daemons_types(daemon: Daemon, app: str) -> None:
    path = daemon.register(app)
    async with salus.connect(path) as first:
        catalogue = first.catalogue
        assert catalogue is not None and _catalogue._current is catalogue
        assert "HKQuantityTypeIdentifierStepCount" in catalogue.types
        assert catalogue.short_names["stepcount"] == "HKQuantityTypeIdentifierStepCount"
        assert "biologicalsex" not in catalogue.short_names, "characteristics are not samples"
        await first.samples("stepCount", limit=1)
        assert first.catalogue is catalogue, "not read again per call"
    async with salus.connect(path) as second:
        assert second.catalogue is not catalogue and _catalogue._current is second.catalogue


def test_units_and_short_names_need_a_connection_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_catalogue, "_current", None)
    with pytest.raises(RuntimeError, match="salus.connect"):
        salus.units.convert(1, "km", "m")
    with pytest.raises(RuntimeError, match="'stepCount'"):
        salus.identifier("stepCount")
    assert salus.identifier("HKQuantityTypeIdentifierStepCount") == "HKQuantityTypeIdentifierStepCount"
    # A sample made before connecting keeps its short name until it is saved.
    assert salus.Sample.quantity("stepCount", 1, "count", _now()).type == "stepCount"


def _now():  # type: ignore[no-untyped-def]
    import datetime as dt

    return dt.datetime.now(dt.timezone.utc)


async def test_a_unit_string_is_asked_of_the_daemon_once_per_connection(store: salus.Store) -> None:
    catalogue = store.catalogue
    assert catalogue is not None and "kg" in catalogue.descriptions, "the catalogue's units are described when it opens"
    asked: list[list[str]] = []
    describe = catalogue._describe
    assert describe is not None
    catalogue._describe = lambda units: asked.append(units) or describe(units)  # type: ignore[func-returns-value]
    assert "mg/(dL*hr)" not in catalogue.descriptions and "g/(L*s)" not in catalogue.descriptions
    assert salus.units.convert(36, "mg/(dL*hr)", "g/(L*s)") == pytest.approx(0.0001)
    assert salus.units.convert(72, "mg/(dL*hr)", "g/(L*s)") == pytest.approx(0.0002)
    with pytest.raises(salus.units.UnitStringError, match='"m/s/s"'):
        salus.units.convert(1, "m/s/s", "m/s^2")
    assert asked == [["mg/(dL*hr)", "g/(L*s)"], ["m/s/s", "m/s^2"]]
