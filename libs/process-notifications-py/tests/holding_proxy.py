"""A TCP relay to the real server that holds back the first client chunk containing a given text
(a consume request, say) and everything the client sends after it on that connection: the
request reaches the server only on :meth:`SwallowingProxy.release`, or never (as when a process
dies with it still on its way) if the proxy is closed first."""

from __future__ import annotations

import socket
import threading


class SwallowingProxy:
    """Listens on a loopback port of its own; ``swallowed`` is set once a chunk was held back."""

    def __init__(self, target_port: int, text: bytes) -> None:
        self._target_port = target_port
        self._text = text
        self._armed = True
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._held: list[tuple[socket.socket, bytes]] = []
        self._released = False
        self.swallowed = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self._target_port))
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._forward, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._forward, args=(upstream, client, False), daemon=True).start()

    def _forward(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        holding = False
        try:
            while chunk := source.recv(65536):
                if from_client and not holding:
                    with self._lock:
                        if self._armed and self._text in chunk:
                            self._armed = False
                            holding = True
                            self.swallowed.set()
                with self._lock:
                    if holding and not self._released:
                        self._held.append((sink, chunk))
                        continue
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            if not holding:
                try:
                    sink.shutdown(socket.SHUT_WR)
                except OSError:
                    pass

    def release(self) -> None:
        """Passes on what was held back, and from then on everything."""
        with self._lock:
            self._released = True
            held, self._held = self._held, []
        for sink, chunk in held:
            sink.sendall(chunk)

    def close(self) -> None:
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                sock.close()
