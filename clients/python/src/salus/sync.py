"""The same API without asyncio, for scripts: ``with salus.sync.connect() as store:``.

Calls run on an event loop in a background thread that the store owns. Queries return lists
(``store.samples(...)`` is a :class:`salus.SampleList`); a live anchored query is a generator
that cancels the query when closed.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Awaitable, Callable, Iterator, Optional, TypeVar

from .model import AnchoredBatch, SampleList, StatisticsCollection
from .store import Store
from .store import connect as _async_connect

__all__ = ["connect", "SyncStore"]

T = TypeVar("T")


class SyncStore:
    """A :class:`salus.Store` whose methods block; the arguments are the same."""

    def __init__(self, loop: asyncio.AbstractEventLoop, thread: threading.Thread, store: Store) -> None:
        self._loop = loop
        self._thread = thread
        self.store = store

    def _run(self, awaitable: Awaitable[T]) -> T:
        async def wrapper() -> T:
            return await awaitable

        return asyncio.run_coroutine_threadsafe(wrapper(), self._loop).result()

    def close(self) -> None:
        """Closes the connection and stops the background loop."""
        if self._loop.is_closed():
            return
        try:
            self._run(self.store.close())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def __enter__(self) -> "SyncStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def catalogue(self) -> Any:
        """The daemon's units and types, read once when the connection opened (:attr:`salus.Store.catalogue`)."""
        return self.store.catalogue

    def convert(self, value: float, unit: str, to: str) -> float:
        """``value`` in ``unit``, expressed in ``to``, with the daemon's units (:meth:`salus.Store.convert`)."""
        return self.store.convert(value, unit, to)

    def request_authorization(self, **kwargs: Any) -> None:
        self._run(self.store.request_authorization(**kwargs))

    def authorization_status(self, type: str) -> str:
        return self._run(self.store.authorization_status(type))

    def save(self, samples: Any, **kwargs: Any) -> list:  # type: ignore[type-arg]
        return self._run(self.store.save(samples, **kwargs))

    def delete(self, samples: Any, **kwargs: Any) -> int:
        return self._run(self.store.delete(samples, **kwargs))

    def samples(self, type: str, **kwargs: Any) -> SampleList:
        return self._run(self.store.samples(type, **kwargs).collect())

    def anchored(self, types: Any, **kwargs: Any) -> Any:
        """A list of batches; with ``live=True`` a generator of them (close it to cancel)."""
        query = self.store.anchored(types, **kwargs)
        if kwargs.get("live"):
            return self._iterate(query.__aiter__)
        return self._run(query.collect())

    def statistics(self, type: str, options: Any, *args: Any, **kwargs: Any) -> Any:
        return self._run(self.store.statistics(type, options, *args, **kwargs))

    def statistics_collection(self, type: str, options: Any, *args: Any, **kwargs: Any) -> StatisticsCollection:
        if kwargs.get("live"):
            raise ValueError("live: use the asyncio API (salus.connect) to follow a collection live")
        return self._run(self.store.statistics_collection(type, options, *args, **kwargs).collect())

    def sources(self, type: str, **kwargs: Any) -> list:  # type: ignore[type-arg]
        return self._run(self.store.sources(type, **kwargs))

    def _iterate(self, make: Callable[[], Any]) -> Iterator[AnchoredBatch]:
        iterator = make()
        try:
            while True:
                try:
                    yield self._run(iterator.__anext__())
                except StopAsyncIteration:
                    return
        finally:
            self._run(iterator.aclose())


def connect(socket: Optional[str] = None, **kwargs: Any) -> SyncStore:
    """Connects as :func:`salus.connect` does and returns a blocking store (a context manager too)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="salus", daemon=True)
    thread.start()
    try:
        store = asyncio.run_coroutine_threadsafe(_async_connect(socket, **kwargs)._open(), loop).result()
    except BaseException:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
        raise
    return SyncStore(loop, thread, store)
