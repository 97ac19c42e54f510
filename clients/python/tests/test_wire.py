"""The framing: credits, cancel, deadlines, GoAway; and the generated modules are current."""

from __future__ import annotations

import asyncio
import filecmp
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import salus
from salus._connection import (
    FLAG_NO_DATA, FRAME_CANCEL, FRAME_DATA, FRAME_GO_AWAY, FRAME_RESPONSE, Connection, encode_frame,
)
from salus._proto.google.rpc import status_pb2
from salus._proto.salus.v1 import any_pb2, diagnostics_pb2, rpc_pb2, session_pb2

from conftest import REPOSITORY, Daemon
from test_protocol_vectors import MemoryWriter

DIAGNOSTICS = "salus.v1.Diagnostics"


async def wait_until(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def test_hello_gives_every_limit_the_daemon_announces(store: salus.Store) -> None:
    # docs/protocol.md sections 6 and 12, with salusd's defaults.
    assert store.limits == salus.Limits(
        max_frame_size=4 * 1024 * 1024,
        max_metadata_size=8192,
        initial_window=store.limits.initial_window,
        receive_window=4,
        max_attachment_size=100 * 1024 * 1024,
        max_connections=512,
        max_streams_per_connection=256,
        max_pending_requests_per_app=32,
    )
    assert store.limits.initial_window > 0


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


# A connection refused by a cap (docs/protocol.md, section 9): the GoAway carries the refusal.

def _refusal() -> rpc_pb2.GoAway:
    detail = rpc_pb2.ErrorDetail(
        reason=rpc_pb2.ERROR_REASON_RESOURCE_EXHAUSTED, field="connections", value="1", expected="at most 1 open connection",
        domain="salus",
    )
    status = status_pb2.Status(
        code=8, message="connections: 1 open; expected at most 1",
        details=[any_pb2.AnyMessage(type_url="type.googleapis.com/salus.v1.ErrorDetail", value=detail.SerializeToString())],
    )
    return rpc_pb2.GoAway(last_stream_id=1, reason=status.message, status=status)


def _frame(stream_id: int, frame_type: int, message) -> bytes:  # type: ignore[no-untyped-def]
    return encode_frame(stream_id, frame_type, 0, message.SerializeToString())


def _echo(connection: Connection, text: str = ""):  # type: ignore[no-untyped-def]
    return connection.unary(DIAGNOSTICS, "Echo", diagnostics_pb2.EchoRequest(text=text), diagnostics_pb2.EchoResponse)


async def test_a_call_made_after_a_refused_connection_closed_reads_the_refusal() -> None:
    # A client starved past the linger: the daemon sent GoAway with the refusal and closed before
    # the first call (here Hello) was read.
    reader, writer = asyncio.StreamReader(), MemoryWriter()
    connection = Connection(reader, writer, "memory")  # type: ignore[arg-type]
    refusal = _refusal()
    refusal.last_stream_id = 0
    hello = asyncio.ensure_future(connection.unary(
        "salus.v1.Session", "Hello", session_pb2.HelloRequest(protocol_version=1), session_pb2.HelloResponse
    ))
    await asyncio.sleep(0)
    reader.feed_data(_frame(0, FRAME_GO_AWAY, refusal))
    reader.feed_eof()
    for call in (hello, _echo(connection, "later"), _echo(connection, "later again")):
        with pytest.raises(salus.ResourceExhaustedError) as refused:
            await asyncio.wait_for(call, 5)
        assert (refused.value.code, refused.value.field, refused.value.expected) == (8, "connections", "at most 1 open connection")
        assert refused.value.message == "connections: 1 open; expected at most 1"
    await connection.close()


async def test_calls_after_the_refused_one_fail_with_the_refusal_at_once() -> None:
    # Calls sent behind the refused first one (streams 3 and 5) get no Response: the GoAway after
    # stream 1 ends them with the refusal, without waiting for the close.
    reader, writer = asyncio.StreamReader(), MemoryWriter()
    connection = Connection(reader, writer, "memory")  # type: ignore[arg-type]
    calls = [asyncio.ensure_future(_echo(connection, str(i))) for i in range(3)]
    await asyncio.sleep(0)
    refusal = _refusal()
    reader.feed_data(_frame(1, FRAME_RESPONSE, rpc_pb2.Response(status=refusal.status)))
    reader.feed_data(_frame(0, FRAME_GO_AWAY, refusal))
    for call in calls:
        with pytest.raises(salus.ResourceExhaustedError) as refused:
            await asyncio.wait_for(call, 5)
        assert refused.value.field == "connections"
    assert connection.going_away
    await connection.close()


async def test_a_shutdown_go_away_fails_later_calls_as_unavailable() -> None:
    reader, writer = asyncio.StreamReader(), MemoryWriter()
    connection = Connection(reader, writer, "memory")  # type: ignore[arg-type]
    running = asyncio.ensure_future(_echo(connection, "on 1"))
    above = asyncio.ensure_future(_echo(connection, "on 3"))
    await asyncio.sleep(0)
    reader.feed_data(_frame(0, FRAME_GO_AWAY, rpc_pb2.GoAway(last_stream_id=1, reason="server shutting down")))
    with pytest.raises(salus.UnavailableError) as unavailable:
        await asyncio.wait_for(above, 5)
    assert unavailable.value.code == 14 and "server shutting down" in unavailable.value.message
    with pytest.raises(salus.UnavailableError):
        await _echo(connection, "later")
    answer = rpc_pb2.Response(status={}, payload=diagnostics_pb2.EchoResponse(text="on 1").SerializeToString())
    reader.feed_data(_frame(1, FRAME_RESPONSE, answer))
    assert (await asyncio.wait_for(running, 5)).text == "on 1"
    await connection.close()


async def test_a_real_daemon_over_its_connection_cap_says_why_on_every_call(app: str) -> None:
    daemon = Daemon(("--max-connections", "1"))
    try:
        path = daemon.register(app)
        inside = None
        for _ in range(100):  # salusctl's own connections may not have been closed yet
            try:
                inside = await salus.connect(path)
                break
            except salus.ResourceExhaustedError:
                await asyncio.sleep(0.05)
        assert inside is not None
        try:
            with pytest.raises(salus.ResourceExhaustedError) as hello:
                await salus.connect(str(daemon.socket))
            assert hello.value.field == "connections"
            # Without Hello: the first call is refused, then GoAway with the refusal, then the close.
            reader, writer = await asyncio.open_unix_connection(str(daemon.socket))
            over = Connection(reader, writer, str(daemon.socket))
            with pytest.raises(salus.ResourceExhaustedError) as first:
                await _echo(over, "first")
            assert first.value.field == "connections"
            await wait_until(lambda: over.going_away, "GoAway")
            await wait_until(lambda: over._closed is not None, "the daemon closing the connection")
            assert over.refusal is not None and over.refusal.field == "connections"
            for attempt in range(2):
                with pytest.raises(salus.ResourceExhaustedError) as later:
                    await _echo(over, f"late {attempt}")
                assert (later.value.code, later.value.field) == (8, "connections")
            await over.close()
            echo = await _echo(inside.connection, "inside")
            assert echo.text == "inside"
        finally:
            await inside.close()
    finally:
        daemon.stop()
        daemon.remove()


# Frames the daemon may send that are not messages (docs/protocol.md, sections 1 to 3).

async def test_a_data_frame_with_no_data_is_not_a_message() -> None:
    # Flag 0x04: the frame carries only flags; its empty payload is not a message (section 2).
    reader, writer = asyncio.StreamReader(), MemoryWriter()
    connection = Connection(reader, writer, "memory")  # type: ignore[arg-type]
    stream = connection.server_stream(
        DIAGNOSTICS, "Generate", diagnostics_pb2.GenerateRequest(count=1), diagnostics_pb2.EchoResponse
    )
    first = asyncio.ensure_future(stream.__anext__())
    await asyncio.sleep(0)
    reader.feed_data(encode_frame(1, FRAME_DATA, FLAG_NO_DATA, b""))
    reader.feed_data(_frame(1, FRAME_DATA, diagnostics_pb2.EchoResponse(text="the message", sequence=7)))
    reader.feed_data(_frame(1, FRAME_RESPONSE, rpc_pb2.Response(status={})))
    message = await asyncio.wait_for(first, 5)
    assert (message.text, message.sequence) == ("the message", 7)
    assert [m async for m in stream] == []
    await connection.close()


async def test_a_frame_over_4_mib_fails_its_call_and_the_others_go_on() -> None:
    # Section 1: a length over 4 MiB (first byte 0) is skipped, its stream fails with
    # RESOURCE_EXHAUSTED; the frame boundary is still known, so other calls are served.
    reader, writer = asyncio.StreamReader(), MemoryWriter()
    connection = Connection(reader, writer, "memory")  # type: ignore[arg-type]
    connection.features = ("cancel",)
    stream = connection.server_stream(
        DIAGNOSTICS, "Generate", diagnostics_pb2.GenerateRequest(count=1), diagnostics_pb2.EchoResponse
    )
    first = asyncio.ensure_future(stream.__anext__())
    other = asyncio.ensure_future(_echo(connection, "other"))
    await asyncio.sleep(0)
    large = diagnostics_pb2.EchoResponse(payload=bytes(4 * 1024 * 1024)).SerializeToString()
    assert len(large) > 4 * 1024 * 1024
    reader.feed_data(struct.pack(">IIBB", len(large), 1, FRAME_DATA, 0) + large)
    answer = rpc_pb2.Response(status={}, payload=diagnostics_pb2.EchoResponse(text="other").SerializeToString())
    reader.feed_data(_frame(3, FRAME_RESPONSE, answer))
    with pytest.raises(salus.ResourceExhaustedError) as exhausted:
        await asyncio.wait_for(first, 5)
    assert exhausted.value.code == 8 and exhausted.value.value == str(len(large))
    assert (await asyncio.wait_for(other, 5)).text == "other"
    await stream.aclose()
    # The failed stream is cancelled on the daemon.
    assert writer.frames[-1] == encode_frame(1, FRAME_CANCEL, 0, b"")
    await connection.close()


async def test_a_connection_whose_stream_ids_are_used_up_refuses_new_calls() -> None:
    # Section 3: ids are u32, odd and increasing, never reused.
    reader, writer = asyncio.StreamReader(), MemoryWriter()
    connection = Connection(reader, writer, "memory")  # type: ignore[arg-type]
    connection._next_stream_id = 0xFFFF_FFFF
    last = asyncio.ensure_future(_echo(connection, "last id"))
    await asyncio.sleep(0)
    assert writer.frames[-1][4:8] == b"\xff\xff\xff\xff"
    with pytest.raises(salus.UnavailableError) as used_up:
        await _echo(connection, "one too many")
    assert used_up.value.field == "stream_id"
    answer = rpc_pb2.Response(status={}, payload=diagnostics_pb2.EchoResponse(text="last id").SerializeToString())
    reader.feed_data(_frame(0xFFFF_FFFF, FRAME_RESPONSE, answer))
    assert (await asyncio.wait_for(last, 5)).text == "last id"
    await connection.close()
