"""What the client decides itself: type names and units (with the daemon's catalogue), error classes."""

from __future__ import annotations

import pytest

import salus
from salus.errors import from_status
from salus._proto.google.rpc import status_pb2
from salus._proto.salus.v1 import any_pb2, rpc_pb2
from salus.units import convert


async def test_short_names_resolve_to_healthkit_identifiers(store: salus.Store) -> None:
    assert salus.identifier("stepCount") == "HKQuantityTypeIdentifierStepCount"
    assert salus.identifier("SLEEPANALYSIS") == "HKCategoryTypeIdentifierSleepAnalysis"
    assert salus.identifier("workout") == "HKWorkoutTypeIdentifier"
    assert salus.identifier("org.example.migraine") == "org.example.migraine"
    assert salus.short_name("HKQuantityTypeIdentifierHeartRate") == "heartRate"
    with pytest.raises(ValueError, match="'stepCont'"):
        salus.identifier("stepCont")


@pytest.mark.parametrize(
    ("value", "unit", "to", "expected"),
    [
        (1.5, "km", "m", 1500.0),
        (1, "mi", "km", 1.609344),
        (72, "count/min", "count/s", 1.2),
        (100, "degC", "degF", 212.0),
        (5.5, "mmol<180.15588>/L", "mg/dL", 99.08573),
        (1, "kcal", "kJ", 4.184),
        (1, "mL/(kg·min)", "L/kg·hr", 0.06),
    ],
)
async def test_units_convert_within_a_dimension(store: salus.Store, value: float, unit: str, to: str, expected: float) -> None:
    assert convert(value, unit, to) == pytest.approx(expected)


async def test_units_of_other_dimensions_do_not_convert(store: salus.Store) -> None:
    with pytest.raises(ValueError, match="'kg' cannot be converted to 'm'"):
        convert(1, "kg", "m")
    with pytest.raises(salus.units.UnitStringError, match='unknown unit "furlong" at position 0') as refused:
        convert(1, "furlong", "m")
    assert (refused.value.code, refused.value.position) == ("unknownUnit", 0) and refused.value.expected
    with pytest.raises(salus.units.UnitStringError, match="kmin") as prefixed:
        convert(1, "kmin", "s")
    assert prefixed.value.code == "prefixNotAllowed"


def _status(code: int, reason: int | None = None, type_url: str = "type.googleapis.com/salus.v1.ErrorDetail") -> status_pb2.Status:
    status = status_pb2.Status(code=code, message="failed")
    if reason is not None:
        detail = rpc_pb2.ErrorDetail(reason=reason, field="anchor", value="12", expected="at most 10", domain="salus")
        status.details.append(any_pb2.AnyMessage(type_url=type_url, value=detail.SerializeToString()))
    return status


def test_errors_take_their_class_from_the_reason_then_the_code() -> None:
    expired = from_status(_status(9, rpc_pb2.ERROR_REASON_ANCHOR_EXPIRED))
    assert isinstance(expired, salus.AnchorExpiredError) and (expired.field, expired.value, expired.expected) == ("anchor", "12", "at most 10")
    assert type(from_status(_status(5, 99))) is salus.NotFoundError  # a reason this client does not know
    assert type(from_status(_status(14))) is salus.UnavailableError  # no detail
    assert type(from_status(_status(7, rpc_pb2.ERROR_REASON_INTERNAL, type_url="type.example/other"))) is salus.PermissionDeniedError
    unknown = from_status(_status(77))
    assert type(unknown) is salus.UnknownError and unknown.code == 77 and isinstance(unknown, salus.SalusError)


async def test_connecting_to_a_missing_socket_names_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    missing = str(tmp_path / "none.sock")
    with pytest.raises(salus.UnavailableError) as error:
        await salus.connect(missing)
    assert error.value.field == "socket" and error.value.value == missing
