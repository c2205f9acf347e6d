"""A typed client (sync and async) of the process notifications REST API (v1), on ``httpx``.

``Client`` and ``AsyncClient`` have the same arguments, calls and answers; the answers are
frozen dataclasses whose attribute names are the wire's field names. An error answer raises
:class:`ProblemError`, no answer at all (or not in time) :class:`NetworkError`, an answer too
large or not JSON :class:`BadAnswerError`; what the contract says to retry
is retried with the identical body by a :class:`RetryPolicy`.
"""

from .async_client import AsyncClient
from .async_worker import AsyncLoopWorker
from .client import Client
from .errors import (
    BAD_ANSWER_CODES,
    BadAnswerCode,
    BadAnswerError,
    CompletionTimeoutError,
    LoopWorkerError,
    LoopWorkerFailure,
    NetworkError,
    ProblemError,
    ProcessNotificationsError,
)
from .models import (
    ClosedSession,
    CompletionDelivery,
    CompletionNotificationBody,
    CompletionUpdate,
    ConsumeResult,
    Consumption,
    JournalPage,
    JournalRecord,
    LifecyclePublication,
    LifecycleRecordBody,
    Loop,
    PendingNotification,
    ProcessOutcome,
    Session,
    SessionCreated,
    SessionToken,
)
from .retry import RetryNotice, RetryPolicy
from .sse import ServerSentEvent, SseDecoder
from .worker import LoopWorker

__all__ = [
    "AsyncClient",
    "AsyncLoopWorker",
    "BAD_ANSWER_CODES",
    "BadAnswerCode",
    "BadAnswerError",
    "Client",
    "ClosedSession",
    "CompletionDelivery",
    "CompletionNotificationBody",
    "CompletionTimeoutError",
    "CompletionUpdate",
    "ConsumeResult",
    "Consumption",
    "JournalPage",
    "JournalRecord",
    "LifecyclePublication",
    "LifecycleRecordBody",
    "Loop",
    "LoopWorker",
    "LoopWorkerError",
    "LoopWorkerFailure",
    "NetworkError",
    "PendingNotification",
    "ProblemError",
    "ProcessNotificationsError",
    "ProcessOutcome",
    "RetryNotice",
    "RetryPolicy",
    "ServerSentEvent",
    "Session",
    "SessionCreated",
    "SessionToken",
    "SseDecoder",
]
