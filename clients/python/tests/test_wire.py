"""The framing: credits, cancel, deadlines, GoAway; and the generated modules are current."""

from __future__ import annotations

import asyncio
import filecmp
import subprocess
import sys
from pathlib import Path

import pytest

import salus
from salus._proto.salus.v1 import diagnostics_pb2

from conftest import REPOSITORY, Daemon

DIAGNOSTICS = "salus.v1.Diagnostics"


async def wait_until(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def test_a_slow_reader_gets_no_more_than_the_window(store: salus.Store) -> None:
    connection = store.connection
    assert connection.limits is not None and "window_update" in connection.features
    window = connection.limits.initial_window
    total = window * 3
    stream = connection.server_stream(
        DIAGNOSTICS, "Generate", diagnostics_pb2.GenerateRequest(count=total, size=16), diagnostics_pb2.EchoResponse, grant=False
    )
    first = await stream.__anext__()
    stream_id = connection.last_stream_id
    assert first.sequence == 0
    # The daemon sends the whole window, then waits for credit: nothing beyond it arrives.
    await wait_until(lambda: connection.buffered(stream_id) == window - 1, "the first window")
    await asyncio.sleep(0.3)
    assert connection.buffered(stream_id) == window - 1
    connection.grant(stream_id, 10)
    await wait_until(lambda: connection.buffered(stream_id) == window - 1 + 10, "ten more")
    await asyncio.sleep(0.3)
    assert connection.buffered(stream_id) == window - 1 + 10
    # Granting the rest lets the stream finish, every message in order.
    connection.grant(stream_id, total)
    sequences = [first.sequence] + [message.sequence async for message in stream]
    assert sequences == list(range(total))


async def test_a_reader_that_consumes_gets_everything(store: salus.Store) -> None:
    assert store.limits is not None
    total = store.limits.initial_window * 4 + 3
    received = [
        m.sequence
        async for m in store.connection.server_stream(
            DIAGNOSTICS, "Generate", diagnostics_pb2.GenerateRequest(count=total, size=8), diagnostics_pb2.EchoResponse
        )
    ]
    assert received == list(range(total))


async def test_cancel_stops_the_call_on_the_daemon(store: salus.Store) -> None:
    connection = store.connection
    call = asyncio.ensure_future(
        connection.unary(DIAGNOSTICS, "Sleep", diagnostics_pb2.SleepRequest(milliseconds=30_000), diagnostics_pb2.SleepResponse)
    )
    await asyncio.sleep(0)  # the Request is written
    connection.cancel(connection.last_stream_id)
    with pytest.raises(salus.CancelledError) as cancelled:
        await asyncio.wait_for(call, 10)
    assert cancelled.value.code == 1


async def test_leaving_an_endless_stream_cancels_it_and_the_connection_serves_on(store: salus.Store) -> None:
    for _ in range(3):
        async for message in store.connection.server_stream(
            DIAGNOSTICS, "Generate", diagnostics_pb2.GenerateRequest(count=0, size=8), diagnostics_pb2.EchoResponse
        ):
            if message.sequence == 5:
                break
    echo = await store.connection.unary(DIAGNOSTICS, "Echo", diagnostics_pb2.EchoRequest(text="still here"), diagnostics_pb2.EchoResponse)
    assert echo.text == "still here"


async def test_a_deadline_ends_the_call_with_deadline_exceeded(store: salus.Store) -> None:
    with pytest.raises(salus.DeadlineExceededError) as exceeded:
        await store.connection.unary(
            DIAGNOSTICS, "Sleep", diagnostics_pb2.SleepRequest(milliseconds=20_000), diagnostics_pb2.SleepResponse, timeout=0.2
        )
    assert exceeded.value.code == 4
    slept = await store.connection.unary(
        DIAGNOSTICS, "Sleep", diagnostics_pb2.SleepRequest(milliseconds=10), diagnostics_pb2.SleepResponse, timeout=5
    )
    assert slept.slept_milliseconds >= 10


async def test_go_away_lets_running_calls_finish_and_refuses_new_ones(app: str) -> None:
    daemon = Daemon()
    try:
        async with salus.connect(daemon.register(app)) as store:
            running = asyncio.ensure_future(
                store.connection.unary(DIAGNOSTICS, "Sleep", diagnostics_pb2.SleepRequest(milliseconds=500), diagnostics_pb2.SleepResponse)
            )
            await asyncio.sleep(0.1)
            daemon.process.terminate()
            await wait_until(lambda: store.connection.going_away, "GoAway")
            assert (await running).slept_milliseconds >= 500
            with pytest.raises(salus.UnavailableError):
                await store.samples("stepCount")
        assert await asyncio.to_thread(daemon.process.wait, 20) == 0
    finally:
        daemon.remove()


def test_the_generated_modules_are_current(tmp_path: Path) -> None:
    protos = sorted(str(p.relative_to(REPOSITORY / "Protos")) for p in (REPOSITORY / "Protos").rglob("*.proto"))
    subprocess.run(
        [sys.executable, str(REPOSITORY / "scripts/generate-python-protos"), str(tmp_path), *protos],
        cwd=REPOSITORY, check=True,
    )
    committed = REPOSITORY / "clients/python/src/salus/_proto"

    def differences(comparison: filecmp.dircmp) -> list[str]:  # type: ignore[type-arg]
        found = [f"{comparison.left}/{name}" for name in comparison.diff_files + comparison.left_only + comparison.right_only]
        for sub in comparison.subdirs.values():
            found += differences(sub)
        return found

    comparison = filecmp.dircmp(tmp_path, committed, ignore=["__pycache__"])
    assert differences(comparison) == [], "run scripts/generate-protos: the committed Python modules differ from Protos/"
