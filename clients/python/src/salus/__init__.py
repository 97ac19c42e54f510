"""salus: the Python client of Salus, a health-data daemon with HealthKit's model.

    import salus, asyncio
    async def main():
        async with salus.connect() as store:          # SALUS_SOCKET, else the default app socket
            await store.request_authorization(read=["stepCount"])
            print((await store.samples("stepCount", limit=10)).to_dataframe())
    asyncio.run(main())

``salus.sync.connect()`` is the same API without asyncio, for scripts.
"""

from . import predicates, sync, units
from ._connection import Connection, Limits
from . import errors as _errors
from .errors import (
    AlreadyExistsError,
    AnchorExpiredError,
    AuthorizationDeniedError,
    AuthorizationNotDeterminedError,
    CancelledError,
    DatabaseInaccessibleError,
    DeadlineExceededError,
    InternalError,
    InvalidArgumentError,
    MalformedMessageError,
    NoDataError,
    NotFoundError,
    PermissionDeniedError,
    ProtocolViolationError,
    ResourceExhaustedError,
    SalusError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
    UnknownError,
)
from .model import (
    AnchoredBatch,
    DeletedObject,
    Device,
    Sample,
    SampleList,
    SaveResult,
    Source,
    SourceRevision,
    Statistics,
    StatisticsCollection,
)
from .store import AnchoredQuery, SampleQuery, StatisticsCollectionQuery, Store, connect, default_socket
from .types import SleepAnalysis, identifier, short_name

__version__ = "0.1.0"

__all__ = [
    "connect",
    "default_socket",
    "Store",
    "Connection",
    "Limits",
    "SampleQuery",
    "AnchoredQuery",
    "StatisticsCollectionQuery",
    "Sample",
    "SampleList",
    "SaveResult",
    "DeletedObject",
    "AnchoredBatch",
    "Statistics",
    "StatisticsCollection",
    "Source",
    "SourceRevision",
    "Device",
    "SleepAnalysis",
    "identifier",
    "short_name",
    "predicates",
    "sync",
    "units",
]
__all__ += _errors.__all__
