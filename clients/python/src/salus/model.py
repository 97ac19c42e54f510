"""The values the store takes and returns: samples, save results, anchored batches, statistics."""

from __future__ import annotations

import datetime as _dt
import uuid as _uuid
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional

from ._proto.salus.v1 import samples_pb2, statistics_pb2, store_pb2
from ._time import from_micros, to_micros
from .types import _identifier_if_known, identifier

__all__ = [
    "Device",
    "SourceRevision",
    "Sample",
    "SampleList",
    "SaveResult",
    "DeletedObject",
    "AnchoredBatch",
    "Statistics",
    "StatisticsCollection",
    "Source",
]

# Metadata keys HealthKit defines that the examples use.
TIME_ZONE_KEY = "HKTimeZone"


@dataclass(frozen=True)
class Device:
    """The device that measured a sample; unset properties are None."""

    name: Optional[str] = None
    manufacturer: Optional[str] = None
    model: Optional[str] = None
    hardware_version: Optional[str] = None
    firmware_version: Optional[str] = None
    software_version: Optional[str] = None
    local_identifier: Optional[str] = None
    udi_device_identifier: Optional[str] = None

    _FIELDS = (
        "name",
        "manufacturer",
        "model",
        "hardware_version",
        "firmware_version",
        "software_version",
        "local_identifier",
        "udi_device_identifier",
    )

    @classmethod
    def _from_wire(cls, wire: samples_pb2.Device) -> "Device":
        return cls(**{name: getattr(wire, name) if wire.HasField(name) else None for name in cls._FIELDS})

    def _to_wire(self) -> samples_pb2.Device:
        wire = samples_pb2.Device()
        for name in self._FIELDS:
            value = getattr(self, name)
            if value is not None:
                setattr(wire, name, value)
        return wire


@dataclass(frozen=True)
class SourceRevision:
    """The app (and version) that saved a sample, as the daemon recorded it."""

    app_id: str
    name: str = ""
    version: str = ""
    product_type: str = ""
    os_version: str = ""


def _metadata_from_wire(wire: Mapping[str, samples_pb2.MetadataValue]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key in sorted(wire):
        value = wire[key]
        kind = value.WhichOneof("kind")
        if kind == "string_value":
            result[key] = value.string_value
        elif kind == "number_value":
            result[key] = value.number_value
        elif kind == "bool_value":
            result[key] = value.bool_value
        elif kind == "date_value":
            result[key] = from_micros(value.date_value)
        elif kind == "quantity_value":
            result[key] = (value.quantity_value.value, value.quantity_value.unit)
    return result


def _metadata_to_wire(metadata: Mapping[str, Any], target: Any, path: str) -> None:
    for key, value in metadata.items():
        wire = target[key]
        if isinstance(value, bool):
            wire.bool_value = value
        elif isinstance(value, (int, float)):
            wire.number_value = float(value)
        elif isinstance(value, str):
            wire.string_value = value
        elif isinstance(value, (_dt.datetime, _dt.date)):
            wire.date_value = to_micros(value, f"{path}.{key}")
        elif isinstance(value, tuple) and len(value) == 2:
            wire.quantity_value.value = float(value[0])
            wire.quantity_value.unit = str(value[1])
        else:
            raise TypeError(
                f"{path}.{key}: {value!r} is not a metadata value; expected str, number, bool, "
                "datetime or (value, unit)"
            )


@dataclass
class Sample:
    """One sample. Make new ones with :meth:`quantity` or :meth:`category`; queries return the rest.

    ``start`` and ``end`` are timezone-aware (UTC in query results). ``value`` is the quantity's
    number (in ``unit``) or the category's raw value; other kinds (workouts, documents, ...) keep
    their wire form in ``wire``. ``uuid``, ``source`` and ``created`` are set by the daemon.
    """

    type: str
    start: _dt.datetime
    end: _dt.datetime
    kind: str = "quantity"
    value: Optional[float] = None
    unit: Optional[str] = None
    metadata: dict[str, Any] = field(default_factory=dict)
    device: Optional[Device] = None
    uuid: Optional[_uuid.UUID] = None
    source: Optional[SourceRevision] = None
    created: Optional[_dt.datetime] = None
    wire: Optional[samples_pb2.Sample] = field(default=None, repr=False, compare=False)

    @classmethod
    def quantity(
        cls,
        type: str,
        value: float,
        unit: str,
        start: _dt.datetime,
        end: Optional[_dt.datetime] = None,
        *,
        metadata: Optional[Mapping[str, Any]] = None,
        device: Optional[Device] = None,
    ) -> "Sample":
        """A quantity sample: ``Sample.quantity("stepCount", 1200, "count", start, end)``."""
        return cls(
            type=_identifier_if_known(type), start=start, end=end or start, kind="quantity", value=float(value), unit=unit,
            metadata=dict(metadata or {}), device=device,
        )

    @classmethod
    def category(
        cls,
        type: str,
        value: int,
        start: _dt.datetime,
        end: Optional[_dt.datetime] = None,
        *,
        metadata: Optional[Mapping[str, Any]] = None,
        device: Optional[Device] = None,
    ) -> "Sample":
        """A category sample with a raw value: ``Sample.category("sleepAnalysis", SleepAnalysis.ASLEEP_REM, start, end)``."""
        return cls(
            type=_identifier_if_known(type), start=start, end=end or start, kind="category", value=int(value),
            metadata=dict(metadata or {}), device=device,
        )

    @property
    def duration(self) -> _dt.timedelta:
        """``end - start``."""
        return self.end - self.start

    @property
    def time_zone(self) -> Optional[str]:
        """The sample's own time zone (metadata ``HKTimeZone``), if it has one."""
        zone = self.metadata.get(TIME_ZONE_KEY)
        return zone if isinstance(zone, str) else None

    @classmethod
    def _from_wire(cls, wire: samples_pb2.Sample) -> "Sample":
        kind = wire.WhichOneof("value") or "none"
        value: Optional[float] = None
        unit: Optional[str] = None
        if kind == "quantity":
            value, unit = wire.quantity.value, wire.quantity.unit
        elif kind == "category":
            value = wire.category.value
        revision = wire.source_revision
        return cls(
            type=wire.type,
            start=from_micros(wire.start_date),
            end=from_micros(wire.end_date),
            kind=kind,
            value=value,
            unit=unit,
            metadata=_metadata_from_wire(wire.metadata),
            device=Device._from_wire(wire.device) if wire.HasField("device") else None,
            uuid=_uuid.UUID(bytes=wire.uuid) if len(wire.uuid) == 16 else None,
            source=SourceRevision(
                revision.app_id, revision.name, revision.version, revision.product_type, revision.os_version
            )
            if wire.HasField("source_revision")
            else None,
            created=from_micros(wire.creation_date) if wire.creation_date else None,
            wire=wire,
        )

    def _to_wire(self, path: str) -> samples_pb2.Sample:
        """The wire form for saving: uuid, source revision and creation date are the daemon's."""
        if self.wire is not None and self.kind not in ("quantity", "category"):
            wire = samples_pb2.Sample()
            wire.CopyFrom(self.wire)
            wire.ClearField("uuid")
            wire.ClearField("source_revision")
            wire.ClearField("creation_date")
            return wire
        wire = samples_pb2.Sample(
            type=identifier(self.type),
            start_date=to_micros(self.start, f"{path}.startDate"),
            end_date=to_micros(self.end, f"{path}.endDate"),
        )
        if self.kind == "quantity":
            if self.value is None or self.unit is None:
                raise ValueError(f"{path}.quantity: a quantity sample needs a value and a unit")
            wire.quantity.value = float(self.value)
            wire.quantity.unit = self.unit
        elif self.kind == "category":
            if self.value is None:
                raise ValueError(f"{path}.category: a category sample needs a raw value")
            wire.category.value = int(self.value)
        else:
            raise ValueError(f"{path}: a {self.kind} sample cannot be made here; expected a quantity or category sample")
        if self.device is not None:
            wire.device.CopyFrom(self.device._to_wire())
        _metadata_to_wire(self.metadata, wire.metadata, f"{path}.metadata")
        return wire


class SampleList(list):  # type: ignore[type-arg]
    """A list of :class:`Sample` with :meth:`to_dataframe`."""

    def to_dataframe(self, *, tz: Optional[str] = None, unit: Optional[str] = None) -> Any:
        """A pandas DataFrame, one row per sample (needs ``salus-client[pandas]``).

        Columns: ``uuid``, ``type``, ``start`` and ``end`` (timezone-aware: UTC, or ``tz``),
        ``value`` (float64 for quantities, nullable Int64 for categories), ``unit``, ``source``
        (the app id), ``device`` (its name), ``time_zone`` (the sample's ``HKTimeZone``).
        With ``unit``, quantity values are converted to it (:func:`salus.units.convert`).
        """
        from ._pandas import samples_frame

        return samples_frame(list(self), tz=tz, unit=unit)


@dataclass(frozen=True)
class SaveResult:
    """What became of one saved sample."""

    #: The UUID the daemon assigned, or that of the existing sample that was kept.
    uuid: _uuid.UUID
    #: "saved", "keptExisting" or "replaced".
    outcome: str
    #: With "replaced": the sample it replaced.
    replaced_uuid: Optional[_uuid.UUID]
    #: The change position of the save's commit.
    anchor: int

    @property
    def kept_existing(self) -> bool:
        """True when a sample with the same sync identifier and an equal or higher version was kept."""
        return self.outcome == "keptExisting"

    @classmethod
    def _from_wire(cls, wire: store_pb2.SaveResult, anchor: int) -> "SaveResult":
        outcome = {
            store_pb2.SAVE_OUTCOME_SAVED: "saved",
            store_pb2.SAVE_OUTCOME_KEPT_EXISTING: "keptExisting",
            store_pb2.SAVE_OUTCOME_REPLACED: "replaced",
        }.get(wire.outcome, "unspecified")
        return cls(
            uuid=_uuid.UUID(bytes=wire.uuid),
            outcome=outcome,
            replaced_uuid=_uuid.UUID(bytes=wire.replaced_uuid) if len(wire.replaced_uuid) == 16 else None,
            anchor=anchor,
        )


@dataclass(frozen=True)
class DeletedObject:
    """A deletion an anchored query reports: the sample's UUID and type, sync metadata only."""

    uuid: _uuid.UUID
    type: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class AnchoredBatch:
    """One batch of an anchored query: samples added and deleted since the previous anchor."""

    added: SampleList
    deleted: list[DeletedObject]
    #: Resume from here (``anchored(..., anchor=batch.anchor)``).
    anchor: int
    #: True on the last batch of the initial results (later batches of a live query are changes).
    initial_results_complete: bool
    #: With a limit: more changes follow this anchor.
    more_changes: bool

    @classmethod
    def _from_wire(cls, wire: store_pb2.AnchoredBatch) -> "AnchoredBatch":
        return cls(
            added=SampleList(Sample._from_wire(s) for s in wire.added),
            deleted=[
                DeletedObject(_uuid.UUID(bytes=d.uuid), d.type, _metadata_from_wire(d.metadata)) for d in wire.deleted
            ],
            anchor=wire.anchor,
            initial_results_complete=wire.initial_results_complete,
            more_changes=wire.more_changes,
        )


_VALUE_FIELDS = ("sum", "average", "minimum", "maximum", "most_recent", "duration")


@dataclass(frozen=True)
class Statistics:
    """Statistics of one quantity type over an interval, merged across sources by priority.

    Each value is None when it was not asked for or no sample counted. Values are in ``unit``,
    ``duration`` in seconds. ``by_source`` (with the ``separateBySource`` option) maps app ids to
    their own :class:`Statistics` (without ``by_source``).
    """

    start: _dt.datetime
    end: _dt.datetime
    unit: str
    sum: Optional[float] = None
    average: Optional[float] = None
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    most_recent: Optional[float] = None
    most_recent_start: Optional[_dt.datetime] = None
    most_recent_end: Optional[_dt.datetime] = None
    duration: Optional[float] = None
    sources: tuple[str, ...] = ()
    by_source: Mapping[str, "Statistics"] = field(default_factory=dict)

    @classmethod
    def _values(cls, wire: statistics_pb2.StatisticValues) -> dict[str, Any]:
        values: dict[str, Any] = {name: getattr(wire, name) if wire.HasField(name) else None for name in _VALUE_FIELDS}
        if values["most_recent"] is not None:
            values["most_recent_start"] = from_micros(wire.most_recent_start)
            values["most_recent_end"] = from_micros(wire.most_recent_end)
        return values

    @classmethod
    def _from_wire(cls, wire: statistics_pb2.StatisticsResult) -> "Statistics":
        start, end = from_micros(wire.start_date), from_micros(wire.end_date)
        return cls(
            start=start,
            end=end,
            unit=wire.unit,
            sources=tuple(wire.sources),
            by_source={
                app: cls(start=start, end=end, unit=wire.unit, **cls._values(values))
                for app, values in sorted(wire.by_source.items())
            },
            **cls._values(wire.values),
        )


@dataclass(frozen=True)
class StatisticsCollection:
    """Statistics per interval of a calendar grid, in order, computed in ``time_zone``."""

    statistics: list[Statistics]
    time_zone: str

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.statistics)

    def __len__(self) -> int:
        return len(self.statistics)

    def __getitem__(self, index: int) -> Statistics:
        return self.statistics[index]

    def to_dataframe(self, *, tz: Optional[str] = None) -> Any:
        """A pandas DataFrame, one row per interval (needs ``salus-client[pandas]``).

        Columns: ``start`` and ``end`` (timezone-aware, in the collection's time zone or ``tz``),
        ``sum``, ``average``, ``minimum``, ``maximum``, ``most_recent`` and ``duration`` (float64,
        NaN where not computed; values in ``unit``, duration in seconds), ``unit``, ``sources``.
        """
        from ._pandas import statistics_frame

        return statistics_frame(self.statistics, tz=tz or self.time_zone or "UTC")


@dataclass(frozen=True)
class Source:
    """An app that saved samples of a type, with the devices they came from."""

    app_id: str
    name: str
    devices: tuple[Device, ...] = ()


def _samples(samples: "Sample | Iterable[Sample]") -> list[Sample]:
    return [samples] if isinstance(samples, Sample) else list(samples)
