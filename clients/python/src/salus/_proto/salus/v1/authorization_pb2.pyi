from salus._proto.salus.v1 import predicates_pb2 as _predicates_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RequestStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REQUEST_STATUS_UNKNOWN: _ClassVar[RequestStatus]
    REQUEST_STATUS_SHOULD_REQUEST: _ClassVar[RequestStatus]
    REQUEST_STATUS_UNNECESSARY: _ClassVar[RequestStatus]

class SharingStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SHARING_STATUS_NOT_DETERMINED: _ClassVar[SharingStatus]
    SHARING_STATUS_SHARING_DENIED: _ClassVar[SharingStatus]
    SHARING_STATUS_SHARING_AUTHORIZED: _ClassVar[SharingStatus]

class Decision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_NOT_DETERMINED: _ClassVar[Decision]
    DECISION_DENIED: _ClassVar[Decision]
    DECISION_GRANTED: _ClassVar[Decision]

class PolicyKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POLICY_KIND_ASK: _ClassVar[PolicyKind]
    POLICY_KIND_GRANT_ALL: _ClassVar[PolicyKind]
    POLICY_KIND_DENY_ALL: _ClassVar[PolicyKind]
    POLICY_KIND_GRANT_LISTED: _ClassVar[PolicyKind]

class RequestState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REQUEST_STATE_PENDING: _ClassVar[RequestState]
    REQUEST_STATE_ANSWERED: _ClassVar[RequestState]
    REQUEST_STATE_CANCELLED: _ClassVar[RequestState]

class IdentityStrength(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IDENTITY_STRENGTH_UNSPECIFIED: _ClassVar[IdentityStrength]
    IDENTITY_STRENGTH_STRONG: _ClassVar[IdentityStrength]
    IDENTITY_STRENGTH_WEAK: _ClassVar[IdentityStrength]
    IDENTITY_STRENGTH_UNVERIFIED: _ClassVar[IdentityStrength]
REQUEST_STATUS_UNKNOWN: RequestStatus
REQUEST_STATUS_SHOULD_REQUEST: RequestStatus
REQUEST_STATUS_UNNECESSARY: RequestStatus
SHARING_STATUS_NOT_DETERMINED: SharingStatus
SHARING_STATUS_SHARING_DENIED: SharingStatus
SHARING_STATUS_SHARING_AUTHORIZED: SharingStatus
DECISION_NOT_DETERMINED: Decision
DECISION_DENIED: Decision
DECISION_GRANTED: Decision
POLICY_KIND_ASK: PolicyKind
POLICY_KIND_GRANT_ALL: PolicyKind
POLICY_KIND_DENY_ALL: PolicyKind
POLICY_KIND_GRANT_LISTED: PolicyKind
REQUEST_STATE_PENDING: RequestState
REQUEST_STATE_ANSWERED: RequestState
REQUEST_STATE_CANCELLED: RequestState
IDENTITY_STRENGTH_UNSPECIFIED: IdentityStrength
IDENTITY_STRENGTH_STRONG: IdentityStrength
IDENTITY_STRENGTH_WEAK: IdentityStrength
IDENTITY_STRENGTH_UNVERIFIED: IdentityStrength

class AuthorizationRequest(_message.Message):
    __slots__ = ("share", "read")
    SHARE_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    share: _containers.RepeatedScalarFieldContainer[str]
    read: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, share: _Optional[_Iterable[str]] = ..., read: _Optional[_Iterable[str]] = ...) -> None: ...

class AuthorizationResponse(_message.Message):
    __slots__ = ("handled",)
    HANDLED_FIELD_NUMBER: _ClassVar[int]
    handled: bool
    def __init__(self, handled: _Optional[bool] = ...) -> None: ...

class RequestStatusResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: RequestStatus
    def __init__(self, status: _Optional[_Union[RequestStatus, str]] = ...) -> None: ...

class AuthorizationStatusRequest(_message.Message):
    __slots__ = ("type",)
    TYPE_FIELD_NUMBER: _ClassVar[int]
    type: str
    def __init__(self, type: _Optional[str] = ...) -> None: ...

class AuthorizationStatusResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: SharingStatus
    def __init__(self, status: _Optional[_Union[SharingStatus, str]] = ...) -> None: ...

class PerObjectReadRequest(_message.Message):
    __slots__ = ("type", "predicate")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    type: str
    predicate: _predicates_pb2.Predicate
    def __init__(self, type: _Optional[str] = ..., predicate: _Optional[_Union[_predicates_pb2.Predicate, _Mapping]] = ...) -> None: ...

class AddAppRequest(_message.Message):
    __slots__ = ("app_id", "name", "read_usage", "write_usage")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    READ_USAGE_FIELD_NUMBER: _ClassVar[int]
    WRITE_USAGE_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    name: str
    read_usage: str
    write_usage: str
    def __init__(self, app_id: _Optional[str] = ..., name: _Optional[str] = ..., read_usage: _Optional[str] = ..., write_usage: _Optional[str] = ...) -> None: ...

class AppRequest(_message.Message):
    __slots__ = ("app_id",)
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    def __init__(self, app_id: _Optional[str] = ...) -> None: ...

class RemoveAppResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListAppsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListAppsResponse(_message.Message):
    __slots__ = ("apps",)
    APPS_FIELD_NUMBER: _ClassVar[int]
    apps: _containers.RepeatedCompositeFieldContainer[AppInfo]
    def __init__(self, apps: _Optional[_Iterable[_Union[AppInfo, _Mapping]]] = ...) -> None: ...

class TypeGrant(_message.Message):
    __slots__ = ("type", "read", "share")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    type: str
    read: Decision
    share: Decision
    def __init__(self, type: _Optional[str] = ..., read: _Optional[_Union[Decision, str]] = ..., share: _Optional[_Union[Decision, str]] = ...) -> None: ...

class ObjectGrant(_message.Message):
    __slots__ = ("type", "uuid")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    type: str
    uuid: bytes
    def __init__(self, type: _Optional[str] = ..., uuid: _Optional[bytes] = ...) -> None: ...

class Policy(_message.Message):
    __slots__ = ("kind", "read", "share", "after_ms")
    KIND_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    kind: PolicyKind
    read: _containers.RepeatedScalarFieldContainer[str]
    share: _containers.RepeatedScalarFieldContainer[str]
    after_ms: int
    def __init__(self, kind: _Optional[_Union[PolicyKind, str]] = ..., read: _Optional[_Iterable[str]] = ..., share: _Optional[_Iterable[str]] = ..., after_ms: _Optional[int] = ...) -> None: ...

class AppInfo(_message.Message):
    __slots__ = ("app_id", "name", "read_usage", "write_usage", "policy", "grants", "objects", "pending", "endpoint", "sync_agent", "accepts_weak_identity")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    READ_USAGE_FIELD_NUMBER: _ClassVar[int]
    WRITE_USAGE_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    GRANTS_FIELD_NUMBER: _ClassVar[int]
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    SYNC_AGENT_FIELD_NUMBER: _ClassVar[int]
    ACCEPTS_WEAK_IDENTITY_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    name: str
    read_usage: str
    write_usage: str
    policy: Policy
    grants: _containers.RepeatedCompositeFieldContainer[TypeGrant]
    objects: _containers.RepeatedCompositeFieldContainer[ObjectGrant]
    pending: _containers.RepeatedCompositeFieldContainer[ConsentRequest]
    endpoint: str
    sync_agent: bool
    accepts_weak_identity: bool
    def __init__(self, app_id: _Optional[str] = ..., name: _Optional[str] = ..., read_usage: _Optional[str] = ..., write_usage: _Optional[str] = ..., policy: _Optional[_Union[Policy, _Mapping]] = ..., grants: _Optional[_Iterable[_Union[TypeGrant, _Mapping]]] = ..., objects: _Optional[_Iterable[_Union[ObjectGrant, _Mapping]]] = ..., pending: _Optional[_Iterable[_Union[ConsentRequest, _Mapping]]] = ..., endpoint: _Optional[str] = ..., sync_agent: _Optional[bool] = ..., accepts_weak_identity: _Optional[bool] = ...) -> None: ...

class SetWeakIdentityRequest(_message.Message):
    __slots__ = ("app_id", "accepted")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    accepted: bool
    def __init__(self, app_id: _Optional[str] = ..., accepted: _Optional[bool] = ...) -> None: ...

class SetSyncAgentRequest(_message.Message):
    __slots__ = ("app_id", "sync_agent")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    SYNC_AGENT_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    sync_agent: bool
    def __init__(self, app_id: _Optional[str] = ..., sync_agent: _Optional[bool] = ...) -> None: ...

class SetPolicyRequest(_message.Message):
    __slots__ = ("app_id", "policy")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    policy: Policy
    def __init__(self, app_id: _Optional[str] = ..., policy: _Optional[_Union[Policy, _Mapping]] = ...) -> None: ...

class SetGrantsRequest(_message.Message):
    __slots__ = ("app_id", "grants")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    GRANTS_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    grants: _containers.RepeatedCompositeFieldContainer[TypeGrant]
    def __init__(self, app_id: _Optional[str] = ..., grants: _Optional[_Iterable[_Union[TypeGrant, _Mapping]]] = ...) -> None: ...

class GrantObjectsRequest(_message.Message):
    __slots__ = ("app_id", "type", "uuids")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    UUIDS_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    type: str
    uuids: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, app_id: _Optional[str] = ..., type: _Optional[str] = ..., uuids: _Optional[_Iterable[bytes]] = ...) -> None: ...

class WithdrawObjectsRequest(_message.Message):
    __slots__ = ("app_id", "uuids")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    UUIDS_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    uuids: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, app_id: _Optional[str] = ..., uuids: _Optional[_Iterable[bytes]] = ...) -> None: ...

class RequestedObject(_message.Message):
    __slots__ = ("uuid", "source", "start_date")
    UUID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    source: str
    start_date: int
    def __init__(self, uuid: _Optional[bytes] = ..., source: _Optional[str] = ..., start_date: _Optional[int] = ...) -> None: ...

class ConsentRequest(_message.Message):
    __slots__ = ("id", "app_id", "app_name", "read_usage", "write_usage", "share", "read", "object_type", "objects", "state", "identity", "created_ms", "identity_strength")
    ID_FIELD_NUMBER: _ClassVar[int]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    APP_NAME_FIELD_NUMBER: _ClassVar[int]
    READ_USAGE_FIELD_NUMBER: _ClassVar[int]
    WRITE_USAGE_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    OBJECT_TYPE_FIELD_NUMBER: _ClassVar[int]
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    CREATED_MS_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    id: str
    app_id: str
    app_name: str
    read_usage: str
    write_usage: str
    share: _containers.RepeatedScalarFieldContainer[str]
    read: _containers.RepeatedScalarFieldContainer[str]
    object_type: str
    objects: _containers.RepeatedCompositeFieldContainer[RequestedObject]
    state: RequestState
    identity: str
    created_ms: int
    identity_strength: IdentityStrength
    def __init__(self, id: _Optional[str] = ..., app_id: _Optional[str] = ..., app_name: _Optional[str] = ..., read_usage: _Optional[str] = ..., write_usage: _Optional[str] = ..., share: _Optional[_Iterable[str]] = ..., read: _Optional[_Iterable[str]] = ..., object_type: _Optional[str] = ..., objects: _Optional[_Iterable[_Union[RequestedObject, _Mapping]]] = ..., state: _Optional[_Union[RequestState, str]] = ..., identity: _Optional[str] = ..., created_ms: _Optional[int] = ..., identity_strength: _Optional[_Union[IdentityStrength, str]] = ...) -> None: ...

class ListRequestsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListRequestsResponse(_message.Message):
    __slots__ = ("requests",)
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[ConsentRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[ConsentRequest, _Mapping]]] = ...) -> None: ...

class AnswerRequestRequest(_message.Message):
    __slots__ = ("request_id", "grant_read", "grant_share", "objects")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GRANT_READ_FIELD_NUMBER: _ClassVar[int]
    GRANT_SHARE_FIELD_NUMBER: _ClassVar[int]
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    grant_read: _containers.RepeatedScalarFieldContainer[str]
    grant_share: _containers.RepeatedScalarFieldContainer[str]
    objects: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, request_id: _Optional[str] = ..., grant_read: _Optional[_Iterable[str]] = ..., grant_share: _Optional[_Iterable[str]] = ..., objects: _Optional[_Iterable[bytes]] = ...) -> None: ...

class AppEndpoint(_message.Message):
    __slots__ = ("app_id", "socket_path")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    SOCKET_PATH_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    socket_path: str
    def __init__(self, app_id: _Optional[str] = ..., socket_path: _Optional[str] = ...) -> None: ...
