"""Every API call of salus.Store against a real salusd."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

import salus
from salus import SleepAnalysis, predicates

UTC = dt.timezone.utc
NIGHT = dt.datetime(2026, 11, 20, 21, 30, tzinfo=UTC)  # 22:30 in Paris


def stages(evening: dt.datetime, tag: str) -> list[salus.Sample]:
    """A short night: inBed around core, deep, REM; each with HKTimeZone and a sync identifier."""
    plan = [(SleepAnalysis.IN_BED, 0, 480), (SleepAnalysis.ASLEEP_CORE, 10, 60), (SleepAnalysis.ASLEEP_DEEP, 70, 50),
            (SleepAnalysis.ASLEEP_REM, 120, 30), (SleepAnalysis.ASLEEP_CORE, 150, 90), (SleepAnalysis.ASLEEP_REM, 240, 40)]
    return [
        salus.Sample.category(
            "sleepAnalysis", value, evening + dt.timedelta(minutes=offset), evening + dt.timedelta(minutes=offset + minutes),
            metadata={"HKTimeZone": "Europe/Paris", "HKMetadataKeySyncIdentifier": f"{tag}-{i}", "HKMetadataKeySyncVersion": 1},
        )
        for i, (value, offset, minutes) in enumerate(plan)
    ]


async def test_save_returns_uuids_and_kept_existing(store: salus.Store) -> None:
    await store.request_authorization(share=["sleepAnalysis"], read=["sleepAnalysis"])
    first = await store.save(stages(NIGHT, "save"))
    assert [r.outcome for r in first] == ["saved"] * 6
    assert len({r.uuid for r in first}) == 6 and all(isinstance(r.uuid, uuid.UUID) for r in first)
    again = await store.save(stages(NIGHT, "save"))
    assert all(r.kept_existing for r in again)
    assert [r.uuid for r in again] == [r.uuid for r in first]


async def test_samples_filters_by_window_predicate_and_limit(store: salus.Store, app: str) -> None:
    await store.request_authorization(share=["sleepAnalysis"], read=["sleepAnalysis"])
    await store.save(stages(NIGHT, "query") + stages(NIGHT + dt.timedelta(days=1), "query-next"))
    night = await store.samples("sleepAnalysis", start=NIGHT, end=NIGHT + dt.timedelta(hours=8), predicate=predicates.sources(app))
    assert len(night) == 6 and isinstance(night, salus.SampleList)
    assert [s.start for s in night] == sorted(s.start for s in night)
    rem = await store.samples(
        "HKCategoryTypeIdentifierSleepAnalysis", start=NIGHT, end=NIGHT + dt.timedelta(hours=8),
        predicate=predicates.category_values(SleepAnalysis.ASLEEP_REM) & predicates.sources(app),
    )
    assert [(s.value, s.duration) for s in rem] == [(5, dt.timedelta(minutes=30)), (5, dt.timedelta(minutes=40))]
    assert rem[0].time_zone == "Europe/Paris" and rem[0].source is not None
    streamed = [s async for s in store.samples("sleepAnalysis", predicate=predicates.category_values(groups=["allAsleep"]) & predicates.sources(app), limit=3, descending=True)]
    assert len(streamed) == 3 and all(s.value in (3, 4, 5) for s in streamed)


async def test_anchored_reports_added_deleted_and_the_anchor(store: salus.Store, app: str) -> None:
    await store.request_authorization(share=["stepCount"], read=["stepCount"])
    saved = await store.save([salus.Sample.quantity("stepCount", 100 + i, "count", NIGHT + dt.timedelta(minutes=i)) for i in range(3)])
    batches = await store.anchored("stepCount", predicate=predicates.sources(app))
    assert sum(len(b.added) for b in batches) == 3 and batches[-1].initial_results_complete
    anchor = batches[-1].anchor
    assert await store.delete([saved[0].uuid]) == 1
    later = await store.anchored(["stepCount"], anchor=anchor, predicate=predicates.sources(app))
    assert [d.uuid for b in later for d in b.deleted] == [saved[0].uuid]
    assert all(not b.added for b in later) and later[-1].anchor > anchor


async def test_live_anchored_query_follows_changes_until_left(store: salus.Store, app: str) -> None:
    await store.request_authorization(share=["stepCount"], read=["stepCount"])
    seen: list[salus.AnchoredBatch] = []
    async for batch in store.anchored("stepCount", live=True, predicate=predicates.sources(app)):
        seen.append(batch)
        if batch.initial_results_complete and len(seen) == 1:
            await store.save(salus.Sample.quantity("stepCount", 42, "count", NIGHT))
        elif batch.added:
            break
    assert seen[-1].added[0].value == 42
    # Leaving the loop cancelled the query; the connection serves on.
    assert await store.authorization_status("stepCount") == "sharingAuthorized"


async def test_statistics_in_the_unit_asked(store: salus.Store, app: str) -> None:
    await store.request_authorization(share=["heartRate", "stepCount"], read=["heartRate", "stepCount"])
    await store.save([salus.Sample.quantity("heartRate", bpm, "count/min", NIGHT + dt.timedelta(minutes=i)) for i, bpm in enumerate((60, 90))])
    await store.save([salus.Sample.quantity("stepCount", 500, "count", NIGHT + dt.timedelta(hours=h)) for h in range(3)])
    window = (NIGHT - dt.timedelta(hours=1), NIGHT + dt.timedelta(hours=4))
    heart = await store.statistics("heartRate", ["discreteAverage", "max", "mostRecent"], *window, unit="count/s")
    # Heart rate is averaged by time: each point holds until the next one, the last for 10 minutes.
    assert heart.unit == "count/s" and heart.average == pytest.approx((60 * 1 + 90 * 10) / 11 / 60)
    assert heart.maximum == pytest.approx(1.5)
    assert heart.most_recent == pytest.approx(1.5) and heart.sum is None
    steps = await store.statistics("stepCount", "cumulativeSum", *window, predicate=predicates.sources(app))
    assert steps.sum == 1500 and len(steps.sources) == 1


async def test_statistics_collection_has_one_row_per_day_in_the_zone(store: salus.Store, app: str) -> None:
    await store.request_authorization(share=["stepCount"], read=["stepCount"])
    paris = dt.timezone(dt.timedelta(hours=1))
    await store.save([salus.Sample.quantity("stepCount", 1000 * (d + 1), "count", dt.datetime(2026, 11, 2 + d, 12, tzinfo=paris)) for d in range(3)])
    collection = await store.statistics_collection(
        "stepCount", "sum", dt.datetime(2026, 11, 2, tzinfo=paris), dt.datetime(2026, 11, 5, tzinfo=paris),
        interval=dt.timedelta(days=1), time_zone="Europe/Paris", predicate=predicates.sources(app),
    )
    assert collection.time_zone == "Europe/Paris"
    assert [s.sum for s in collection] == [1000, 2000, 3000]
    assert [s.start for s in collection] == [dt.datetime(2026, 11, d, tzinfo=paris) for d in (2, 3, 4)]
    frame = collection.to_dataframe()
    assert str(frame["start"].dtype) == "datetime64[us, Europe/Paris]"
    assert [t.hour for t in frame["start"]] == [0, 0, 0]
    assert frame["sum"].dtype == "float64" and frame["sum"].tolist() == [1000.0, 2000.0, 3000.0]
    assert frame["average"].isna().all()


async def test_sources_lists_the_app(store: salus.Store, app: str) -> None:
    await store.request_authorization(share=["bodyMass"], read=["bodyMass"])
    await store.save(salus.Sample.quantity("bodyMass", 70, "kg", NIGHT, device=salus.Device(name="Scale", manufacturer="Acme")))
    sources = await store.sources("bodyMass")
    assert [s.app_id for s in sources] == [app]
    assert sources[0].devices[0].name == "Scale" and sources[0].devices[0].model is None


async def test_errors_are_named_after_the_reason_and_carry_field_and_value(store: salus.Store) -> None:
    await store.request_authorization(share=["stepCount"], read=["stepCount"])
    with pytest.raises(salus.InvalidArgumentError) as invalid:
        await store.save([salus.Sample.quantity("stepCount", 1, "count", NIGHT), salus.Sample.quantity("stepCount", 1, "kg", NIGHT)])
    assert invalid.value.code == 3 and invalid.value.field == "samples[1].quantity.unit" and "kg" in invalid.value.value
    with pytest.raises(salus.AuthorizationNotDeterminedError) as undetermined:
        await store.save(salus.Sample.quantity("bodyTemperature", 37, "degC", NIGHT))
    assert undetermined.value.code == 7 and undetermined.value.field == "type"
    assert await store.authorization_status("bodyTemperature") == "notDetermined"


async def test_a_connection_without_an_app_identity_is_unauthenticated(daemon) -> None:  # type: ignore[no-untyped-def]
    async with salus.connect(str(daemon.socket)) as store:
        with pytest.raises(salus.UnauthenticatedError) as error:
            await store.samples("stepCount")
        assert error.value.code == 16


async def test_salus_socket_gives_the_program_its_app_identity(daemon, app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SALUS_SOCKET", daemon.register(app))
    assert salus.default_socket() == daemon.register(app)
    async with salus.connect() as store:
        await store.request_authorization(share=["stepCount"])
        [result] = await store.save(salus.Sample.quantity("stepCount", 7, "count", NIGHT))
        [sample] = await store.samples("stepCount", predicate=predicates.uuids(result.uuid))
    assert sample.source is not None and sample.source.app_id == app


async def test_a_denied_read_looks_like_no_data(daemon, app) -> None:  # type: ignore[no-untyped-def]
    async with salus.connect(daemon.register(app)) as writer:
        await writer.request_authorization(share=["respiratoryRate"], read=["respiratoryRate"])
        await writer.save(salus.Sample.quantity("respiratoryRate", 14, "count/min", NIGHT))
        assert len(await writer.samples("respiratoryRate")) == 1
    async with salus.connect(daemon.register(app + ".denied", "deny-all")) as reader:
        await reader.request_authorization(read=["respiratoryRate"])  # handled: says nothing of the answer
        assert await reader.samples("respiratoryRate") == []
        assert [b.added for b in await reader.anchored("respiratoryRate")] in ([], [[]])
        assert await reader.sources("respiratoryRate") == []
        assert (await reader.statistics("respiratoryRate", "average")).average is None


def test_the_sync_wrapper_runs_the_same_calls(daemon, app) -> None:  # type: ignore[no-untyped-def]
    with salus.sync.connect(daemon.register(app)) as store:
        store.request_authorization(share=["stepCount"], read=["stepCount"])
        [saved] = store.save(salus.Sample.quantity("stepCount", 12, "count", NIGHT))
        assert [s.uuid for s in store.samples("stepCount", predicate=predicates.sources(app))] == [saved.uuid]
        assert store.statistics("stepCount", "sum", predicate=predicates.sources(app)).sum == 12
        batches = store.anchored("stepCount", predicate=predicates.sources(app))
        assert batches[-1].anchor >= saved.anchor
        live = store.anchored("stepCount", live=True, predicate=predicates.sources(app))
        assert next(live).added[0].uuid == saved.uuid
        live.close()
        assert store.delete([saved.uuid]) == 1
        # A unit string the catalogue does not name is asked of the daemon on this connection.
        assert "mg/(dL*hr)" not in store.catalogue.descriptions
        assert store.convert(36, "mg/(dL*hr)", "g/(L*s)") == pytest.approx(0.0001)
        assert store.catalogue.descriptions["mg/(dL*hr)"].meaning.canonical == "mg/dL·hr"


async def test_a_live_statistics_collection_sends_the_changed_interval(store: salus.Store, app: str) -> None:
    await store.request_authorization(share=["stepCount"], read=["stepCount"])
    day = dt.datetime(2026, 10, 5, tzinfo=UTC)
    updates: list[salus.StatisticsCollection] = []
    async for collection in store.statistics_collection(
        "stepCount", "sum", day, day + dt.timedelta(days=3), time_zone="UTC", predicate=predicates.sources(app), live=True
    ):
        updates.append(collection)
        if len(updates) == 1:
            assert [s.sum for s in collection] == [None, None, None]
            await store.save(salus.Sample.quantity("stepCount", 250, "count", day + dt.timedelta(days=1, hours=9)))
        else:
            break
    assert [(s.start, s.sum) for s in updates[-1]] == [(day + dt.timedelta(days=1), 250)]


async def test_pages_ended_by_bytes_bring_every_sample_and_change(store: salus.Store, app: str) -> None:
    # 300 samples of 16 KB of metadata (4.8 MB): sample query pages end at 1 MiB, and so do the
    # pages of an anchored read, whose limit then returns fewer changes with more to follow.
    await store.request_authorization(share=["stepCount"], read=["stepCount"])
    note = "n" * 16_000
    base = dt.datetime(2026, 9, 1, tzinfo=UTC)
    uuids: list[uuid.UUID] = []
    for first in range(0, 300, 100):
        saved = await store.save([
            salus.Sample.quantity("stepCount", i, "count", base + dt.timedelta(minutes=i), metadata={"org.example.note": note})
            for i in range(first, first + 100)
        ])
        uuids += [r.uuid for r in saved]
    assert await store.delete(uuids[:10]) == 10
    mine = predicates.sources(app)

    queried = await store.samples("stepCount", predicate=mine)
    assert [s.value for s in queried] == list(range(10, 300))
    assert all(s.metadata["org.example.note"] == note for s in queried)
    assert [s.value async for s in store.samples("stepCount", predicate=mine, limit=250, descending=True)] == list(range(299, 49, -1))

    # No limit: the initial results in several batches, the deletions after the changes they follow.
    batches = await store.anchored("stepCount", predicate=mine)
    assert len(batches) > 1 and batches[-1].initial_results_complete
    assert [s.value for b in batches for s in b.added] == list(range(10, 300))
    assert [d.uuid for b in batches for d in b.deleted] == uuids[:10]

    # A limit of 1,000: each answer is one page, smaller than the limit while more follow.
    anchor = None
    pages: list[salus.AnchoredBatch] = []
    while len(pages) < 50:
        [page] = await store.anchored("stepCount", predicate=mine, limit=1_000, anchor=anchor)
        pages.append(page)
        anchor = page.anchor
        if not page.more_changes:
            break
    assert len(pages) > 2 and not pages[-1].more_changes
    assert all(len(p.added) + len(p.deleted) < 1_000 for p in pages)
    assert [s.value for p in pages for s in p.added] == list(range(10, 300))
    assert [d.uuid for p in pages for d in p.deleted] == uuids[:10]
    [after] = await store.anchored("stepCount", predicate=mine, limit=1_000, anchor=anchor)
    assert (after.added, after.deleted, after.more_changes) == ([], [], False)
