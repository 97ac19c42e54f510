"""The client's frames against the hex test vectors of docs/protocol.md, section 15 (no daemon).

The connection runs over an in-memory transport: what it writes is compared with the vectors the
client must send, and the vectors the daemon sends are fed to it.
"""

from __future__ import annotations

import asyncio
import re

import pytest

import salus
from salus._connection import FEATURES, Connection
from salus._proto.salus.v1 import diagnostics_pb2, rpc_pb2, session_pb2

from conftest import REPOSITORY


def vectors() -> dict[str, bytes]:
    text = (REPOSITORY / "docs/protocol.md").read_text()
    return {
        name: bytes.fromhex(body.replace("\n", " "))
        for name, body in re.findall(r"```hex vector=([\w-]+)\n(.*?)```", text, flags=re.S)
    }


class MemoryWriter:
    """The writing half of a transport that keeps what is written."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.frames.append(data)

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        pass

    async def wait_closed(self) -> None:
        pass


async def test_the_client_writes_and_reads_the_documented_frames() -> None:
    hexes = vectors()
    assert len(hexes) >= 11
    reader, writer = asyncio.StreamReader(), MemoryWriter()
    connection = Connection(reader, writer, "memory")  # type: ignore[arg-type]

    # Hello on stream 1.
    hello = asyncio.ensure_future(connection.unary(
        "salus.v1.Session", "Hello",
        session_pb2.HelloRequest(protocol_version=1, client_name="salus-example", client_version="1.0", features=list(FEATURES)),
        session_pb2.HelloResponse,
    ))
    await asyncio.sleep(0)
    assert writer.frames[-1] == hexes["hello-request"]
    answer = rpc_pb2.Response(status={}, payload=session_pb2.HelloResponse(protocol_version=1, features=list(FEATURES)).SerializeToString())
    reader.feed_data(bytes([0, 0, 0, len(answer.SerializeToString()), 0, 0, 0, 1, 2, 0]) + answer.SerializeToString())
    assert list((await hello).features) == list(FEATURES)
    connection.features = FEATURES

    # A unary call with a deadline and metadata on stream 3, and its answer.
    echo = asyncio.ensure_future(connection.unary(
        "salus.v1.Diagnostics", "Echo", diagnostics_pb2.EchoRequest(text="hi"), diagnostics_pb2.EchoResponse,
        timeout=5, metadata={"trace-id": "42"},
    ))
    await asyncio.sleep(0)
    assert writer.frames[-1] == hexes["echo-request"]
    reader.feed_data(hexes["response-ok"])
    assert (await echo).text == "hi"

    # An error on stream 5: the class named after the reason, with field, value and expected.
    sleep = asyncio.ensure_future(connection.unary(
        "salus.v1.Diagnostics", "Sleep", diagnostics_pb2.SleepRequest(milliseconds=90_000), diagnostics_pb2.SleepResponse
    ))
    await asyncio.sleep(0)
    reader.feed_data(hexes["response-error"])
    with pytest.raises(salus.InvalidArgumentError) as error:
        await sleep
    assert (error.value.code, error.value.field, error.value.value, error.value.expected) == (3, "milliseconds", "90000", "at most 60000")

    # A server stream on stream 7: its Request, a Data frame, a grant, a Cancel.
    stream = connection.server_stream(
        "salus.v1.Diagnostics", "Generate", diagnostics_pb2.GenerateRequest(count=3, size=4), diagnostics_pb2.EchoResponse, grant=False
    )
    first = asyncio.ensure_future(stream.__anext__())
    await asyncio.sleep(0)
    assert writer.frames[-1] == hexes["server-stream-request"]
    reader.feed_data(hexes["data"])
    message = await first
    assert (message.payload, message.sequence) == (b"ZZZZ", 1)
    connection.grant(7, 16)
    assert writer.frames[-1] == hexes["window-update"]
    connection.cancel(7)
    assert writer.frames[-1] == hexes["cancel"]
    cancelled = rpc_pb2.Response(status={"code": 1, "message": "cancelled"}).SerializeToString()
    reader.feed_data(bytes([0, 0, 0, len(cancelled), 0, 0, 0, 7, 2, 0]) + cancelled)
    with pytest.raises(salus.CancelledError):
        await stream.__anext__()

    # GoAway after stream 9: a call on 9 goes on; later ones fail here, without a frame sent.
    running = asyncio.ensure_future(connection.unary(
        "salus.v1.Diagnostics", "Echo", diagnostics_pb2.EchoRequest(text="on 9"), diagnostics_pb2.EchoResponse
    ))
    await asyncio.sleep(0)
    assert writer.frames[-1][4:8] == bytes([0, 0, 0, 9])
    reader.feed_data(hexes["go-away"])
    await asyncio.sleep(0)
    assert connection.going_away
    sent = len(writer.frames)
    with pytest.raises(salus.UnavailableError):
        await connection.unary("salus.v1.Diagnostics", "Echo", diagnostics_pb2.EchoRequest(), diagnostics_pb2.EchoResponse)
    assert len(writer.frames) == sent

    # A header whose first byte is not 0 means the frame boundary is lost: the open call fails.
    reader.feed_data(b"\x01" + bytes(9))
    with pytest.raises(salus.ProtocolViolationError):
        await running
    await connection.close()
