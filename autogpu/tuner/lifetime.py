"""The tuner's child processes end when the tuner does, even when it is killed (SIGKILL).

Compile workers and the measurement process are started by multiprocessing's fork server, so
they are not the tuner's children, and each holds the server's "alive" pipe: the server outlives
a killed tuner as long as they do, and an idle compile worker waits forever on a queue whose
write end it holds itself. (PR_SET_PDEATHSIG would tie a child to the fork server, not to the
tuner.) So every child gets the read end of a *lifeline* pipe whose write end only the tuner
holds, and a thread in the child ends the process at EOF, which the kernel delivers however the
tuner dies. Once the children are gone, the fork server and the resource tracker see their own
pipes close and exit too.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

_lock = threading.Lock()
_pipe: tuple[Connection, Connection] | None = None  # (read end, write end), this process's
_owner: int | None = None  # the pid that made `_pipe`


def lifeline() -> Connection:
    """The read end to give a child process (as an argument: multiprocessing passes it on)."""
    global _pipe, _owner
    with _lock:
        if _pipe is None or _owner != os.getpid():
            _pipe, _owner = multiprocessing.Pipe(duplex=False), os.getpid()
        return _pipe[0]


def watch_lifeline(reader: Connection) -> None:
    """In a child: exit as soon as the process that made `reader` is gone (a pool initializer)."""
    if _pipe is not None and _owner != os.getpid():
        _pipe[1].close()  # a forked child's copy of the write end would keep the pipe open
    threading.Thread(target=_exit_at_eof, args=(reader,), name="autogpu-lifeline",
                     daemon=True).start()


def run_tied(reader: Connection, target: Callable[..., Any], *args: Any) -> Any:
    """`target(*args)` in a child that ends with its parent (a `Process` target)."""
    watch_lifeline(reader)
    return target(*args)


def _exit_at_eof(reader: Connection) -> None:
    try:
        reader.recv_bytes()  # nothing is ever sent: this returns when the tuner is gone
    except (EOFError, OSError):
        pass
    os._exit(1)
