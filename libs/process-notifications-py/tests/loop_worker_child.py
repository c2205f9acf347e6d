"""A child process that runs a loop worker (``sync`` or ``async``, the first argument) of the
package on one loop, for the crash test: it prints ``{"handled": <command_id>}`` as each handler
returns, and stops on SIGTERM (the work in flight and its consumes finish), printing
``{"closed": true}``. The PN_* variables say where and which loop."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from types import FrameType

from process_notifications import AsyncClient, AsyncLoopWorker, Client, LoopWorker, LoopWorkerError, PendingNotification


def say(message: object) -> None:
    print(json.dumps(message), flush=True)


def on_error(error: LoopWorkerError) -> None:
    say({"error": error.code})


def run_sync(url: str, token: str, session_id: str, loop_id: str) -> None:
    def handle(notification: PendingNotification) -> None:
        say({"handled": notification.command_id})

    with Client(url, token) as client:
        worker = LoopWorker(client, session_id, loop_id, handle, on_error=on_error)

        def stop(_signal: int, _frame: FrameType | None) -> None:
            worker.stop()

        signal.signal(signal.SIGTERM, stop)
        say({"ready": True})
        worker.run()


async def run_async(url: str, token: str, session_id: str, loop_id: str) -> None:
    async def handle(notification: PendingNotification) -> None:
        say({"handled": notification.command_id})

    async with AsyncClient(url, token) as client:
        worker = AsyncLoopWorker(client, session_id, loop_id, handle, on_error=on_error)
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, worker.stop)
        say({"ready": True})
        await worker.run()


if __name__ == "__main__":
    where = (os.environ["PN_SERVER_URL"], os.environ["PN_TOKEN"], os.environ["PN_SESSION_ID"], os.environ["PN_LOOP_ID"])
    if sys.argv[1] == "sync":
        run_sync(*where)
    else:
        asyncio.run(run_async(*where))
    say({"closed": True})
