"""The asyncio API: ``async with salus.connect() as store``, shaped like SalusKit's HealthStore."""

from __future__ import annotations

import asyncio
import datetime as _dt
import os
from typing import Any, AsyncIterator, Generator, Iterable, Optional, Sequence, Union

from . import _catalogue
from ._catalogue import Catalogue
from ._connection import Connection, Limits, call_blocking
from ._proto.salus.v1 import authorization_pb2, catalogue_pb2, statistics_pb2, store_pb2
from ._time import to_micros
from .model import (
    AnchoredBatch,
    Device,
    Sample,
    SampleList,
    SaveResult,
    Source,
    Statistics,
    StatisticsCollection,
    _samples,
)
from .predicates import PredicateLike, combine
from .types import identifier

__all__ = ["connect", "default_socket", "Store", "SampleQuery", "AnchoredQuery", "StatisticsCollectionQuery"]

_STORE = "salus.v1.Store"
_STATISTICS = "salus.v1.Statistics"
_AUTHORIZATION = "salus.v1.Authorization"
_CATALOGUE = "salus.v1.Catalogue"
# The daemon describes at most this many unit strings per call.
_DESCRIBE_BATCH = 1024


def default_socket() -> str:
    """The app socket: ``SALUS_SOCKET`` (what ``salusctl launch`` hands a program), else the default.

    The default is ``$XDG_RUNTIME_DIR/salus/salus.sock``, else ``/tmp/salus-<uid>/salus.sock``.
    """
    socket = os.environ.get("SALUS_SOCKET")
    if socket:
        return socket
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = f"{runtime}/salus" if runtime else f"/tmp/salus-{os.getuid()}"
    return f"{folder}/salus.sock"


class connect:
    """Connects to salusd: ``async with salus.connect() as store:`` (or ``store = await salus.connect()``).

    ``socket`` defaults to :func:`default_socket`; a program started by ``salusctl launch --app
    ID --`` is that app. ``app_id`` is declared to the daemon, which honours it only in
    development mode (``salusd --dev``). ``app_name`` and ``app_version`` are recorded as the
    source of what the app saves.
    """

    def __init__(
        self,
        socket: Optional[str] = None,
        *,
        app_id: str = "",
        app_name: Optional[str] = None,
        app_version: str = "",
        timeout: Optional[float] = 10.0,
    ) -> None:
        self._arguments = (socket or default_socket(), app_id, app_name or app_id or "salus-python", app_version, timeout)
        self._store: Optional[Store] = None

    async def _open(self) -> "Store":
        path, app_id, name, version, timeout = self._arguments
        connection = await Connection.open(
            path, client_name=name, client_version=version, app_id=app_id, timeout=timeout
        )
        store = Store(connection)
        try:
            await store._read_catalogue(timeout)
        except BaseException:
            await connection.close()
            raise
        return store

    def __await__(self) -> Generator[Any, None, "Store"]:
        return self._open().__await__()

    async def __aenter__(self) -> "Store":
        self._store = await self._open()
        return self._store

    async def __aexit__(self, *exc: object) -> None:
        if self._store is not None:
            await self._store.close()


_OPTIONS = {
    "cumulativesum": statistics_pb2.STATISTICS_OPTION_CUMULATIVE_SUM,
    "sum": statistics_pb2.STATISTICS_OPTION_CUMULATIVE_SUM,
    "discreteaverage": statistics_pb2.STATISTICS_OPTION_DISCRETE_AVERAGE,
    "average": statistics_pb2.STATISTICS_OPTION_DISCRETE_AVERAGE,
    "discretemin": statistics_pb2.STATISTICS_OPTION_DISCRETE_MIN,
    "min": statistics_pb2.STATISTICS_OPTION_DISCRETE_MIN,
    "minimum": statistics_pb2.STATISTICS_OPTION_DISCRETE_MIN,
    "discretemax": statistics_pb2.STATISTICS_OPTION_DISCRETE_MAX,
    "max": statistics_pb2.STATISTICS_OPTION_DISCRETE_MAX,
    "maximum": statistics_pb2.STATISTICS_OPTION_DISCRETE_MAX,
    "mostrecent": statistics_pb2.STATISTICS_OPTION_MOST_RECENT,
    "duration": statistics_pb2.STATISTICS_OPTION_DURATION,
    "separatebysource": statistics_pb2.STATISTICS_OPTION_SEPARATE_BY_SOURCE,
}


def _options(options: Union[str, Iterable[str]]) -> list[int]:
    names = [options] if isinstance(options, str) else list(options)
    result = []
    for name in names:
        key = name.replace("_", "").replace(" ", "").lower()
        if key not in _OPTIONS:
            raise ValueError(
                f"options: {name!r} is not a statistics option; expected cumulativeSum (sum), discreteAverage "
                "(average), discreteMin (min), discreteMax (max), mostRecent, duration or separateBySource"
            )
        result.append(_OPTIONS[key])
    return result


_INTERVAL_UNITS = {
    "second": statistics_pb2.INTERVAL_UNIT_SECOND,
    "minute": statistics_pb2.INTERVAL_UNIT_MINUTE,
    "hour": statistics_pb2.INTERVAL_UNIT_HOUR,
    "day": statistics_pb2.INTERVAL_UNIT_DAY,
    "week": statistics_pb2.INTERVAL_UNIT_WEEK,
    "month": statistics_pb2.INTERVAL_UNIT_MONTH,
}


def _interval(interval: Union[_dt.timedelta, tuple[int, str]]) -> tuple[int, int]:
    """A timedelta (whole weeks, days, hours, minutes or seconds) or ``(count, "month")``."""
    if isinstance(interval, tuple):
        count, unit = interval
        if unit.rstrip("s") not in _INTERVAL_UNITS or int(count) < 1:
            raise ValueError(
                f"interval: {interval!r} is not valid; expected (count ≥ 1, one of {', '.join(_INTERVAL_UNITS)})"
            )
        return int(count), _INTERVAL_UNITS[unit.rstrip("s")]
    if not isinstance(interval, _dt.timedelta) or interval <= _dt.timedelta(0) or interval.microseconds:
        raise ValueError(f"interval: {interval!r} is not valid; expected a positive timedelta of whole seconds or (count, 'month')")
    seconds = int(interval.total_seconds())
    for size, unit in ((604800, "week"), (86400, "day"), (3600, "hour"), (60, "minute"), (1, "second")):
        if seconds % size == 0:
            return seconds // size, _INTERVAL_UNITS[unit]
    raise AssertionError("unreachable")


class Store:
    """An app's connection to the daemon's store, as HealthKit's HKHealthStore.

    Every method may be used from many tasks at once; calls share one connection. Errors are
    :class:`salus.SalusError` subclasses named after the daemon's reason.
    """

    def __init__(self, connection: Connection) -> None:
        #: The connection underneath, for methods the store does not wrap.
        self.connection = connection
        #: The daemon's units and types (``salus.v1.Catalogue``), read once when the connection
        #: opened; :func:`salus.units.convert` and :func:`salus.identifier` use the catalogue of
        #: the most recently opened connection.
        self.catalogue: Optional[Catalogue] = None

    async def _read_catalogue(self, timeout: Optional[float] = None) -> Catalogue:
        response = await self.connection.unary(
            _CATALOGUE, "Get", catalogue_pb2.CatalogueRequest(), catalogue_pb2.CatalogueResponse, timeout=timeout
        )
        self._loop = asyncio.get_running_loop()
        catalogue = Catalogue(response, describe=self._describe_blocking)
        # Every unit the catalogue names, described in one call: most conversions ask nothing more.
        catalogue.remember(await self.describe_units([unit.unit for unit in response.units], timeout=timeout))
        self.catalogue = catalogue
        _catalogue._set_current(self.catalogue)
        return self.catalogue

    async def describe_units(
        self, units: list[str], *, timeout: Optional[float] = None
    ) -> list[catalogue_pb2.UnitDescription]:
        """Each unit string as the daemon's parser reads it (``salus.v1.Catalogue/DescribeUnits``):
        its dimension and conversion to the dimension's coherent SI unit, or its ``problem``."""
        descriptions: list[catalogue_pb2.UnitDescription] = []
        for start in range(0, len(units), _DESCRIBE_BATCH):
            response = await self.connection.unary(
                _CATALOGUE,
                "DescribeUnits",
                catalogue_pb2.DescribeUnitsRequest(units=units[start:start + _DESCRIBE_BATCH]),
                catalogue_pb2.DescribeUnitsResponse,
                timeout=timeout,
            )
            descriptions += response.units
        return descriptions

    def _describe_blocking(self, units: list[str]) -> list[catalogue_pb2.UnitDescription]:
        """describe_units for the synchronous :func:`salus.units.convert`: on this connection when
        its loop runs in another thread (salus.sync); from the loop's own thread, which cannot wait
        for its connection, on a short-lived socket to the same daemon (the catalogue needs no Hello)."""
        try:
            running: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if self._loop.is_running() and running is not self._loop:
            return asyncio.run_coroutine_threadsafe(self.describe_units(units, timeout=10.0), self._loop).result()
        descriptions: list[catalogue_pb2.UnitDescription] = []
        for start in range(0, len(units), _DESCRIBE_BATCH):
            response = call_blocking(
                self.connection.path,
                _CATALOGUE,
                "DescribeUnits",
                catalogue_pb2.DescribeUnitsRequest(units=units[start:start + _DESCRIBE_BATCH]),
                catalogue_pb2.DescribeUnitsResponse,
            )
            descriptions += response.units
        return descriptions

    def convert(self, value: float, unit: str, to: str) -> float:
        """``value`` in ``unit``, expressed in ``to``, with this daemon's units (ValueError when they cannot convert)."""
        if self.catalogue is None:
            raise RuntimeError("convert needs the daemon's catalogue; expected a store opened with salus.connect()")
        return self.catalogue.convert(value, unit, to)

    @property
    def server_version(self) -> str:
        return self.connection.server_version

    @property
    def limits(self) -> Optional[Limits]:
        """The daemon's limits from Hello (frame size, windows, ...)."""
        return self.connection.limits

    async def close(self) -> None:
        """Closes the connection; calls still open fail with UnavailableError."""
        await self.connection.close()

    async def __aenter__(self) -> "Store":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # Authorization

    async def request_authorization(
        self, *, share: Iterable[str] = (), read: Iterable[str] = (), timeout: Optional[float] = None
    ) -> None:
        """Asks the owner for permission to write ``share`` and read ``read`` types.

        Returns when the request has been handled (answered by the owner or a policy, at once when
        nothing is new). Success never says what was granted: a read the owner denied looks like
        no data.
        """
        request = authorization_pb2.AuthorizationRequest(
            share=[identifier(t) for t in share], read=[identifier(t) for t in read]
        )
        await self.connection.unary(
            _AUTHORIZATION, "RequestAuthorization", request, authorization_pb2.AuthorizationResponse, timeout=timeout
        )

    async def authorization_status(self, type: str) -> str:
        """Sharing (write) status of a type: "notDetermined", "sharingDenied" or "sharingAuthorized"."""
        response = await self.connection.unary(
            _AUTHORIZATION,
            "AuthorizationStatus",
            authorization_pb2.AuthorizationStatusRequest(type=identifier(type)),
            authorization_pb2.AuthorizationStatusResponse,
        )
        return {
            authorization_pb2.SHARING_STATUS_SHARING_DENIED: "sharingDenied",
            authorization_pb2.SHARING_STATUS_SHARING_AUTHORIZED: "sharingAuthorized",
        }.get(response.status, "notDetermined")

    # Saving and deleting

    async def save(self, samples: Union[Sample, Iterable[Sample]], *, timeout: Optional[float] = None) -> list[SaveResult]:
        """Saves samples in one transaction, all or nothing; one result per sample, in order.

        A failure names the sample's index in ``field`` (``samples[3].quantity.unit``).
        """
        items = _samples(samples)
        request = store_pb2.SaveRequest(samples=[s._to_wire(f"samples[{i}]") for i, s in enumerate(items)])
        response = await self.connection.unary(_STORE, "Save", request, store_pb2.SaveResponse, timeout=timeout)
        return [SaveResult._from_wire(result, response.anchor) for result in response.results]

    async def delete(self, samples: Iterable[Union[Sample, Any]], *, timeout: Optional[float] = None) -> int:
        """Deletes samples this app saved (Samples or UUIDs), all or nothing; returns how many."""
        uuids = [s.uuid.bytes if isinstance(s, Sample) and s.uuid else s.bytes for s in samples]
        request = store_pb2.DeleteRequest(uuids=store_pb2.UUIDList(uuids=uuids))
        response = await self.connection.unary(_STORE, "Delete", request, store_pb2.DeleteResponse, timeout=timeout)
        return response.deleted

    # Queries

    def samples(
        self,
        type: str,
        *,
        start: Optional[_dt.datetime] = None,
        end: Optional[_dt.datetime] = None,
        predicate: Optional[PredicateLike] = None,
        limit: Optional[int] = None,
        descending: bool = False,
        timeout: Optional[float] = None,
    ) -> "SampleQuery":
        """Samples of one type, by start date: ``async for sample in store.samples("stepCount", start=...)``.

        ``await store.samples(...)`` gives them all as a :class:`SampleList`. ``start``/``end``
        select samples overlapping that window; ``predicate`` narrows further.
        """
        request = store_pb2.SampleQueryRequest(
            type=identifier(type),
            sort=[store_pb2.SortDescriptor(key=store_pb2.SORT_KEY_START_DATE, descending=descending)],
            limit=_limit(limit),
        )
        combined = combine(start, end, predicate)
        if combined is not None:
            request.predicate.CopyFrom(combined)
        return SampleQuery(self.connection, request, timeout)

    def anchored(
        self,
        types: Union[str, Sequence[str]],
        *,
        anchor: Optional[int] = None,
        predicate: Optional[PredicateLike] = None,
        limit: Optional[int] = None,
        live: bool = False,
    ) -> "AnchoredQuery":
        """What was added and deleted since ``anchor`` (None: from the start), in batches.

        ``async for batch in store.anchored("sleepAnalysis"):`` yields :class:`AnchoredBatch`es
        (``added``, ``deleted``, ``anchor``). With ``live=True`` the query then follows every
        later change until the loop is left, which cancels it.
        """
        names = [types] if isinstance(types, str) else list(types)
        given = combine(None, None, predicate)
        request = store_pb2.AnchoredQueryRequest(
            descriptors=[store_pb2.TypedPredicate(type=identifier(t), predicate=given) for t in names],
            limit=_limit(limit),
            live=live,
        )
        if anchor is not None:
            request.anchor = anchor
        return AnchoredQuery(self.connection, request)

    async def statistics(
        self,
        type: str,
        options: Union[str, Iterable[str]],
        start: Optional[_dt.datetime] = None,
        end: Optional[_dt.datetime] = None,
        *,
        unit: Optional[str] = None,
        predicate: Optional[PredicateLike] = None,
        timeout: Optional[float] = None,
    ) -> Statistics:
        """Statistics of a quantity type over [start, end) (both or neither), merged by source priority.

        ``options``: "cumulativeSum" (or "sum"), "discreteAverage" ("average"), "discreteMin",
        "discreteMax", "mostRecent", "duration", "separateBySource". Values are in ``unit``, else
        the owner's preferred unit, else the type's canonical unit.
        """
        request = statistics_pb2.StatisticsRequest(type=identifier(type), options=_options(options), unit=unit or "")
        if (start is None) != (end is None):
            raise ValueError("start, end: give both or neither")
        if start is not None and end is not None:
            request.window_start = to_micros(start, "start")
            request.window_end = to_micros(end, "end")
        given = combine(None, None, predicate)
        if given is not None:
            request.predicate.CopyFrom(given)
        response = await self.connection.unary(
            _STATISTICS, "Query", request, statistics_pb2.StatisticsResponse, timeout=timeout
        )
        return Statistics._from_wire(response.statistics)

    def statistics_collection(
        self,
        type: str,
        options: Union[str, Iterable[str]],
        start: _dt.datetime,
        end: _dt.datetime,
        *,
        interval: Union[_dt.timedelta, tuple[int, str]] = _dt.timedelta(days=1),
        anchor: Optional[_dt.datetime] = None,
        time_zone: Optional[str] = None,
        unit: Optional[str] = None,
        predicate: Optional[PredicateLike] = None,
        live: bool = False,
    ) -> "StatisticsCollectionQuery":
        """Statistics of every interval overlapping [start, end), on a calendar grid.

        Intervals start at ``anchor`` (default: ``start``) and repeat every ``interval`` (a
        timedelta, or ``(1, "month")``), in ``time_zone`` (IANA; default the daemon's).
        ``await`` it for a :class:`StatisticsCollection`; with ``live=True``, ``async for`` it for
        the initial collection and then each change.
        """
        count, interval_unit = _interval(interval)
        request = statistics_pb2.StatisticsCollectionRequest(
            type=identifier(type),
            options=_options(options),
            unit=unit or "",
            anchor_date=to_micros(anchor or start, "anchor"),
            interval_count=count,
            interval_unit=interval_unit,
            time_zone=time_zone or "",
            live=live,
        )
        setattr(request, "from", to_micros(start, "start"))
        request.to = to_micros(end, "end")
        given = combine(None, None, predicate)
        if given is not None:
            request.predicate.CopyFrom(given)
        return StatisticsCollectionQuery(self.connection, request)

    async def sources(
        self, type: str, *, predicate: Optional[PredicateLike] = None, timeout: Optional[float] = None
    ) -> list[Source]:
        """The apps (and their devices) that saved samples of ``type`` this app may read."""
        request = store_pb2.SourceQueryRequest(type=identifier(type))
        given = combine(None, None, predicate)
        if given is not None:
            request.predicate.CopyFrom(given)
        response = await self.connection.unary(
            _STORE, "QuerySources", request, store_pb2.SourceQueryResponse, timeout=timeout
        )
        return [
            Source(s.app_id, s.name, tuple(Device._from_wire(d) for d in s.devices)) for s in response.sources
        ]


def _limit(limit: Optional[int]) -> int:
    if limit is None:
        return 0
    if limit < 1:
        raise ValueError(f"limit: {limit} is not valid; expected at least 1, or None for no limit")
    return limit


class SampleQuery:
    """A running or pending sample query: ``async for`` its samples, or ``await`` a SampleList."""

    def __init__(self, connection: Connection, request: store_pb2.SampleQueryRequest, timeout: Optional[float]) -> None:
        self._connection = connection
        self._request = request
        self._timeout = timeout

    async def __aiter__(self) -> AsyncIterator[Sample]:
        stream = self._connection.server_stream(
            _STORE, "QuerySamples", self._request, store_pb2.SampleBatch, timeout=self._timeout
        )
        try:
            async for batch in stream:
                for wire in batch.samples:
                    yield Sample._from_wire(wire)
        finally:
            await stream.aclose()

    async def collect(self) -> SampleList:
        """Every sample, as a SampleList."""
        return SampleList([sample async for sample in self])

    def __await__(self) -> Generator[Any, None, SampleList]:
        return self.collect().__await__()


class AnchoredQuery:
    """An anchored query: ``async for batch in ...``; leaving the loop cancels a live one."""

    def __init__(self, connection: Connection, request: store_pb2.AnchoredQueryRequest) -> None:
        self._connection = connection
        self._request = request

    async def __aiter__(self) -> AsyncIterator[AnchoredBatch]:
        stream = self._connection.server_stream(_STORE, "QueryAnchored", self._request, store_pb2.AnchoredBatch)
        try:
            async for batch in stream:
                yield AnchoredBatch._from_wire(batch)
        finally:
            await stream.aclose()

    async def collect(self) -> list[AnchoredBatch]:
        """Every batch of a query that is not live."""
        if self._request.live:
            raise ValueError("live: a live anchored query never ends; iterate it with async for instead")
        return [batch async for batch in self]

    def __await__(self) -> Generator[Any, None, list[AnchoredBatch]]:
        return self.collect().__await__()


class StatisticsCollectionQuery:
    """A statistics collection: ``await`` it, or with ``live=True`` ``async for`` its updates."""

    def __init__(self, connection: Connection, request: statistics_pb2.StatisticsCollectionRequest) -> None:
        self._connection = connection
        self._request = request

    async def __aiter__(self) -> AsyncIterator[StatisticsCollection]:
        """The initial collection, then (live) collections of the intervals that changed."""
        stream = self._connection.server_stream(
            _STATISTICS, "QueryCollection", self._request, statistics_pb2.StatisticsCollectionBatch
        )
        pending: list[Statistics] = []
        initial_done = False
        zone = self._request.time_zone
        try:
            async for batch in stream:
                pending.extend(Statistics._from_wire(s) for s in batch.statistics)
                zone = batch.time_zone or zone
                if batch.initial_results_complete or initial_done:
                    initial_done = True
                    yield StatisticsCollection(pending, zone)
                    pending = []
            if pending or not initial_done:
                yield StatisticsCollection(pending, zone)
        finally:
            await stream.aclose()

    async def collect(self) -> StatisticsCollection:
        """The initial collection (of a query that is not live, or the first of a live one)."""
        async for collection in self:
            return collection
        return StatisticsCollection([], self._request.time_zone)

    def __await__(self) -> Generator[Any, None, StatisticsCollection]:
        return self.collect().__await__()
