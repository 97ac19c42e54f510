"""The wire: frames, multiplexed calls, credits, cancel, deadlines and GoAway (docs/protocol.md).

One :class:`Connection` is one Unix socket to salusd. A reader task routes incoming frames to
their call by stream id; each call takes the next odd stream id. After Hello (sent by
:meth:`Connection.open`), server streams are under credits: the daemon sends at most
``limits.initial_window`` Data frames before this side grants more, and this side grants only
as the program consumes, so a slow reader never makes either side buffer more than the window.
"""

from __future__ import annotations

import asyncio
import math
import socket
import struct
from dataclasses import dataclass, field
from typing import AsyncIterator, Mapping, Optional, TypeVar

from google.protobuf.message import DecodeError, Message

from . import errors
from ._proto.salus.v1 import rpc_pb2, session_pb2

M = TypeVar("M", bound=Message)

# Section 1: a 10-byte header, u32 length, u32 stream id, u8 type, u8 flags, all big-endian.
_HEADER = struct.Struct(">IIBB")
MAX_FRAME_SIZE = 4 * 1024 * 1024

# Section 2: frame types and flags.
FRAME_REQUEST = 0x01
FRAME_RESPONSE = 0x02
FRAME_DATA = 0x03
FRAME_CANCEL = 0x04
FRAME_WINDOW_UPDATE = 0x05
FRAME_GO_AWAY = 0x06
FLAG_REMOTE_CLOSED = 0x01
FLAG_REMOTE_OPEN = 0x02
FLAG_NO_DATA = 0x04

FEATURES = ("cancel", "window_update", "go_away")
PROTOCOL_VERSION = 1
# How long past a call's deadline this side waits for the daemon's DEADLINE_EXCEEDED before it
# gives up on its own (the transfer time, section 10).
_DEADLINE_GRACE = 1.0
# What the reader task queues for a call that ends without a Response (negative: no frame type).
_ENDED_BY_CLOSE = -1
_ENDED_BY_GO_AWAY = -2
_OVERSIZED = -3
# Stream ids are u32 (section 3): the last odd one a call can take.
_LAST_STREAM_ID = 0xFFFF_FFFF


def encode_frame(stream_id: int, frame_type: int, flags: int, payload: bytes) -> bytes:
    """One frame: the header, then the payload."""
    if len(payload) > MAX_FRAME_SIZE:
        raise errors.ResourceExhaustedError(
            f"payload: {len(payload)} bytes is too large; expected at most {MAX_FRAME_SIZE}",
            code=8,
            field="payload",
            value=str(len(payload)),
            expected=f"at most {MAX_FRAME_SIZE} bytes",
        )
    return _HEADER.pack(len(payload), stream_id, frame_type, flags) + payload


@dataclass(frozen=True)
class Limits:
    """What the daemon announced in Hello (``salus.v1.Limits``)."""

    max_frame_size: int
    max_metadata_size: int
    initial_window: int
    receive_window: int
    max_attachment_size: int
    max_connections: int
    max_streams_per_connection: int
    max_pending_requests_per_app: int


@dataclass
class _Call:
    """One open stream: what the reader task delivers to the caller."""

    stream_id: int
    queue: "asyncio.Queue[tuple[int, bytes]]" = field(default_factory=asyncio.Queue)
    ended: bool = False


class Connection:
    """A connection to salusd: Hello, then any unary or server-streaming method by name.

    Most programs use :class:`salus.Store`; this is the layer underneath, for methods the store
    does not wrap. Every method may be used from many tasks at once.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str) -> None:
        self._reader = reader
        self._writer = writer
        self.path = path
        self._next_stream_id = 1
        self._calls: dict[int, _Call] = {}
        self._closed: Optional[errors.SalusError] = None
        self._go_away_last: Optional[int] = None
        # What calls after the GoAway's last stream fail with: UNAVAILABLE for a shutdown, or the
        # refusal the GoAway carried (a connection cap, docs/protocol.md section 9).
        self._go_away_error: Optional[errors.SalusError] = None
        # The refusal: every call the daemon did not answer fails with it, also after the close.
        self._refusal: Optional[errors.SalusError] = None
        self.features: tuple[str, ...] = ()
        self.limits: Optional[Limits] = None
        self.server_version = ""
        self.services: dict[str, dict[str, tuple[bool, bool]]] = {}
        self._reading = asyncio.get_running_loop().create_task(self._read_frames())

    @classmethod
    async def open(
        cls,
        path: str,
        *,
        client_name: str = "salus-python",
        client_version: str = "",
        app_id: str = "",
        timeout: Optional[float] = 10.0,
    ) -> "Connection":
        """Connects to the Unix socket at ``path`` and says Hello with every feature."""
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(path), timeout)
        except (OSError, asyncio.TimeoutError) as error:
            raise errors.UnavailableError(
                f"socket: cannot connect to {path}: {error}; expected a running salusd "
                "(SALUS_SOCKET, or salusctl launch --app ID -- your program)",
                code=14,
                field="socket",
                value=path,
                expected="the app socket of a running salusd",
            ) from None
        connection = cls(reader, writer, path)
        try:
            hello = await connection.unary(
                "salus.v1.Session",
                "Hello",
                session_pb2.HelloRequest(
                    protocol_version=PROTOCOL_VERSION,
                    client_name=client_name,
                    client_version=client_version,
                    features=list(FEATURES),
                    app_id=app_id,
                ),
                session_pb2.HelloResponse,
                timeout=timeout,
            )
        except BaseException:
            await connection.close()
            raise
        connection.features = tuple(hello.features)
        limits = hello.limits
        connection.limits = Limits(
            max_frame_size=limits.max_frame_size,
            max_metadata_size=limits.max_metadata_size,
            initial_window=limits.initial_window,
            receive_window=limits.receive_window,
            max_attachment_size=limits.max_attachment_size,
            max_connections=limits.max_connections,
            max_streams_per_connection=limits.max_streams_per_connection,
            max_pending_requests_per_app=limits.max_pending_requests_per_app,
        )
        connection.server_version = hello.server_version
        connection.services = {
            service.name: {m.name: (m.client_streaming, m.server_streaming) for m in service.methods}
            for service in hello.services
        }
        return connection

    @property
    def going_away(self) -> bool:
        """True once the daemon sent GoAway: new calls fail with UnavailableError, or with the
        refusal the GoAway carried when the daemon refused the connection (:attr:`refusal`)."""
        return self._go_away_last is not None

    @property
    def refusal(self) -> Optional[errors.SalusError]:
        """Why the daemon refused this connection (over a connection cap), from its GoAway's
        ``status``; every call it did not answer, and every later one, raises it. None otherwise."""
        return self._refusal

    async def close(self) -> None:
        """Closes the connection; calls still open fail with :class:`UnavailableError`."""
        self._fail_all(errors.UnavailableError("the connection was closed by this program", code=14))
        self._reading.cancel()
        try:
            await self._reading
        except BaseException:
            pass
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except OSError:
            pass

    # Calls

    async def unary(
        self,
        service: str,
        method: str,
        request: Message,
        response_type: type[M],
        *,
        timeout: Optional[float] = None,
        metadata: Optional[Mapping[str, str]] = None,
    ) -> M:
        """Calls a unary method and returns its decoded response; raises a SalusError on failure.

        ``timeout`` (seconds) is sent as the call's deadline; ``metadata`` as its key-value pairs.
        """
        call = self._start(service, method, request, flags=0, timeout=timeout, metadata=metadata)
        try:
            await self._drain()
            payload = await self._wait_response(call, timeout)
        except BaseException:
            self._abandon(call)
            raise
        return _decode(response_type, payload, f"{service}/{method} response")

    async def server_stream(
        self,
        service: str,
        method: str,
        request: Message,
        message_type: type[M],
        *,
        timeout: Optional[float] = None,
        metadata: Optional[Mapping[str, str]] = None,
        grant: bool = True,
    ) -> AsyncIterator[M]:
        """Calls a server-streaming method and yields its messages until the daemon ends the call.

        Credits are granted as messages are consumed (half the window at a time). Leaving the
        loop early (break, an exception, task cancellation) sends Cancel. With ``grant=False``
        nothing is granted: the daemon sends the first window and then waits (for tests of the
        flow control, with :meth:`grant` and :meth:`buffered`).
        """
        call = self._start(service, method, request, flags=FLAG_REMOTE_CLOSED, timeout=timeout, metadata=metadata)
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout + _DEADLINE_GRACE
        window = self.limits.initial_window if (self.limits and "window_update" in self.features) else 0
        consumed = 0
        try:
            await self._drain()
            while True:
                frame_type, payload = await self._next(call, deadline)
                if frame_type == FRAME_RESPONSE:
                    _check_response(payload)
                    return
                yield _decode(message_type, payload, f"{service}/{method} message")
                consumed += 1
                if window and grant and consumed >= max(1, window // 2):
                    self._send(call.stream_id, FRAME_WINDOW_UPDATE, 0, rpc_pb2.WindowUpdate(credits=consumed).SerializeToString())
                    consumed = 0
        finally:
            if not call.ended:
                self._abandon(call)

    def grant(self, stream_id: int, credits: int) -> None:
        """Grants the daemon ``credits`` more Data frames on an open stream."""
        self._send(stream_id, FRAME_WINDOW_UPDATE, 0, rpc_pb2.WindowUpdate(credits=credits).SerializeToString())

    def cancel(self, stream_id: int) -> None:
        """Asks the daemon to stop an open call (Cancel); its caller then gets CancelledError.

        Leaving a stream's loop or cancelling the awaiting task does this too, without waiting
        for the answer.
        """
        if stream_id in self._calls and "cancel" in self.features:
            self._send(stream_id, FRAME_CANCEL, 0, b"")

    def buffered(self, stream_id: int) -> int:
        """How many frames have arrived on a stream and not been consumed yet."""
        call = self._calls.get(stream_id)
        return call.queue.qsize() if call else 0

    @property
    def last_stream_id(self) -> int:
        """The stream id of the call started last."""
        return self._next_stream_id - 2

    # Internals

    def _start(
        self,
        service: str,
        method: str,
        request: Message,
        *,
        flags: int,
        timeout: Optional[float],
        metadata: Optional[Mapping[str, str]] = None,
    ) -> _Call:
        failure = self._refusal or self._closed
        stream_id = self._next_stream_id
        if failure is None and self._go_away_last is not None and stream_id > self._go_away_last:
            failure = self._go_away_error
        if failure is not None:
            raise _copy(failure)
        if stream_id > _LAST_STREAM_ID:
            raise errors.UnavailableError(
                f"stream_id: the stream ids of this connection are used up (the next would be {stream_id}); "
                "expected a new connection for new calls",
                code=14,
                field="stream_id",
                value=str(stream_id),
                expected=f"at most {_LAST_STREAM_ID}",
            )
        self._next_stream_id += 2
        timeout_nano = 0
        if timeout is not None:
            if timeout <= 0 or not math.isfinite(timeout):
                raise ValueError(f"timeout: {timeout} is not valid; expected a positive number of seconds")
            timeout_nano = max(1, int(timeout * 1e9))
        envelope = rpc_pb2.Request(
            service=service,
            method=method,
            payload=request.SerializeToString(),
            timeout_nano=timeout_nano,
            metadata=[rpc_pb2.KeyValue(key=k, value=v) for k, v in (metadata or {}).items()],
        )
        call = _Call(stream_id)
        self._calls[stream_id] = call
        self._send(stream_id, FRAME_REQUEST, flags, envelope.SerializeToString())
        return call

    def _send(self, stream_id: int, frame_type: int, flags: int, payload: bytes) -> None:
        # A frame is written whole in one write: frames of different calls never interleave.
        if self._closed is None:
            self._writer.write(encode_frame(stream_id, frame_type, flags, payload))

    async def _drain(self) -> None:
        try:
            await self._writer.drain()
        except OSError as error:
            self._fail_all(errors.UnavailableError(f"the connection to {self.path} closed: {error}", code=14))

    async def _wait_response(self, call: _Call, timeout: Optional[float]) -> bytes:
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout + _DEADLINE_GRACE
        while True:
            frame_type, payload = await self._next(call, deadline)
            if frame_type == FRAME_RESPONSE:
                return _check_response(payload)

    async def _next(self, call: _Call, deadline: Optional[float]) -> tuple[int, bytes]:
        if not call.queue.empty():
            item = call.queue.get_nowait()  # what has arrived is delivered, deadline or not
        elif deadline is None:
            item = await call.queue.get()
        else:
            remaining = deadline - asyncio.get_running_loop().time()
            try:
                item = await asyncio.wait_for(call.queue.get(), max(0.0, remaining))
            except asyncio.TimeoutError:
                raise errors.DeadlineExceededError(
                    "the daemon did not answer within the call's timeout", code=4
                ) from None
        frame_type, payload = item
        if frame_type == _OVERSIZED:
            # The call is not ended on the daemon's side: the caller's cleanup cancels it.
            length = int(payload)
            raise errors.ResourceExhaustedError(
                f"the daemon sent a frame of {length} bytes; expected at most {MAX_FRAME_SIZE} (the frame limit)",
                code=8,
                field="length",
                value=str(length),
                expected=f"at most {MAX_FRAME_SIZE} bytes",
            )
        if frame_type < 0:
            call.ended = True
            if frame_type == _ENDED_BY_GO_AWAY and self._go_away_error is not None:
                raise _copy(self._refusal or self._go_away_error)
            raise _copy(self._refusal or self._closed or errors.UnavailableError("the connection closed", code=14))
        if frame_type == FRAME_RESPONSE:
            call.ended = True
            self._calls.pop(call.stream_id, None)
        return item

    def _abandon(self, call: _Call) -> None:
        """Stops a call the program no longer waits for: Cancel, and ignore what still comes."""
        if call.ended:
            return
        call.ended = True
        self._calls.pop(call.stream_id, None)
        if "cancel" in self.features:
            self._send(call.stream_id, FRAME_CANCEL, 0, b"")

    def _fail_all(self, error: errors.SalusError) -> None:
        if self._closed is None:
            self._closed = error
        for call in list(self._calls.values()):
            call.queue.put_nowait((_ENDED_BY_CLOSE, b""))
        self._calls.clear()

    def _go_away(self, payload: bytes) -> None:
        """GoAway (section 9): calls after ``last_stream_id`` fail now, and later ones at once,
        with the refusal it carries (``status``), else with UNAVAILABLE."""
        try:
            go_away = rpc_pb2.GoAway.FromString(payload)
        except DecodeError:
            go_away = rpc_pb2.GoAway()
        refused = go_away.HasField("status") and go_away.status.code != 0
        error = errors.from_status(go_away.status) if refused else errors.UnavailableError(
            f"the daemon is going away ({go_away.reason or 'GoAway'}): connect again for new calls", code=14
        )
        self._go_away_last = go_away.last_stream_id
        self._go_away_error = error
        if refused and self._refusal is None:
            self._refusal = error
        for stream_id, call in list(self._calls.items()):
            if stream_id > go_away.last_stream_id:
                call.queue.put_nowait((_ENDED_BY_GO_AWAY, b""))
                self._calls.pop(stream_id, None)

    async def _skip(self, length: int) -> None:
        while length > 0:
            chunk = await self._reader.read(min(length, 1 << 16))
            if not chunk:
                raise asyncio.IncompleteReadError(b"", length)
            length -= len(chunk)

    async def _read_frames(self) -> None:
        try:
            while True:
                header = await self._reader.readexactly(_HEADER.size)
                if header[0] != 0:
                    raise errors.ProtocolViolationError(
                        f"frame header: first byte {header[0]:#04x} is not valid; expected 0 (lost frame boundary)",
                        code=3,
                        field="length",
                        value=header[:4].hex(),
                        expected="a first byte of 0",
                    )
                length, stream_id, frame_type, flags = _HEADER.unpack(header)
                if length > MAX_FRAME_SIZE:
                    # Section 1: the boundary is still known; the frame is skipped and only its
                    # call fails.
                    await self._skip(length)
                    call = self._calls.pop(stream_id, None)
                    if call is not None and not call.ended:
                        call.queue.put_nowait((_OVERSIZED, str(length).encode()))
                    continue
                payload = await self._reader.readexactly(length) if length else b""
                if frame_type == FRAME_GO_AWAY:
                    self._go_away(payload)
                    continue
                if frame_type not in (FRAME_RESPONSE, FRAME_DATA):
                    continue  # WindowUpdate for client streams (none here) and unknown types.
                if frame_type == FRAME_DATA and flags & FLAG_NO_DATA:
                    continue  # flags only, not a message (section 2); the daemon closes with the Response
                call = self._calls.get(stream_id)
                if call is None or call.ended:
                    continue  # a dead or abandoned stream
                call.queue.put_nowait((frame_type, payload))
        except asyncio.CancelledError:
            raise
        except errors.SalusError as error:
            self._fail_all(error)
        except (asyncio.IncompleteReadError, OSError) as error:
            self._fail_all(errors.UnavailableError(f"the connection to {self.path} closed: {error}", code=14))


def call_blocking(path: str, service: str, method: str, request: Message, response_type: type[M], *, timeout: float = 10.0) -> M:
    """One unary call on a short-lived socket of its own, without Hello, blocking the caller.

    For the few calls the daemon answers before Hello (salus.v1.Catalogue) when a synchronous
    function needs one from the thread that runs the connection's event loop, which cannot wait
    for its own connection.
    """
    envelope = rpc_pb2.Request(service=service, method=method, payload=request.SerializeToString())
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(path)
            sock.sendall(encode_frame(1, FRAME_REQUEST, 0, envelope.SerializeToString()))
            while True:
                length, stream_id, frame_type, _flags = _HEADER.unpack(_receive(sock, _HEADER.size))
                if length > MAX_FRAME_SIZE:
                    raise errors.ProtocolViolationError(
                        f"frame header: length {length} is too large; expected at most {MAX_FRAME_SIZE}", code=3
                    )
                payload = _receive(sock, length)
                if stream_id == 1 and frame_type == FRAME_RESPONSE:
                    return _decode(response_type, _check_response(payload), f"{service}/{method} response")
    except OSError as error:
        raise errors.UnavailableError(
            f"socket: {service}/{method} on {path} failed: {error}; expected a running salusd",
            code=14,
            field="socket",
            value=path,
            expected="the socket of a running salusd",
        ) from None


def _receive(sock: socket.socket, count: int) -> bytes:
    data = bytearray()
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError(f"the daemon closed the socket after {len(data)} of {count} bytes")
        data += chunk
    return bytes(data)


def _copy(error: errors.SalusError) -> errors.SalusError:
    """A fresh exception like ``error``, for each call that fails with it."""
    return type(error)(error.message, code=error.code, field=error.field, value=error.value, expected=error.expected)


def _check_response(payload: bytes) -> bytes:
    response = _decode(rpc_pb2.Response, payload, "Response")
    if response.HasField("status") and response.status.code != 0:
        raise errors.from_status(response.status)
    return response.payload


def _decode(message_type: type[M], payload: bytes, what: str) -> M:
    try:
        return message_type.FromString(payload)
    except DecodeError as error:
        raise errors.MalformedMessageError(
            f"{what}: does not decode as {message_type.DESCRIPTOR.full_name}: {error}",
            code=3,
            field=what,
            value=f"{len(payload)} bytes",
            expected=message_type.DESCRIPTOR.full_name,
        ) from None
