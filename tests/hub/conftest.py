"""An in-process course exchange on loopback, with the hub's answer about tokens stood in by a table.

The real hub's answer is the same user model (name and groups); the tests in
test_hub_real.py run the service under a real JupyterHub.
"""

import asyncio
import threading

import pytest
from tornado.netutil import bind_sockets

from perceptron_course.hub.client import ExchangeClient
from perceptron_course.hub.connections import ConnectionGuard
from perceptron_course.hub.service import GuardedHTTPServer, make_app, server_settings
from perceptron_course.hub.store import Store
from perceptron_course.limits import Limits

PEOPLE = {
    "tok-ann": ("ann", ["course-perceptron-students"]),
    "tok-bob": ("bob", ["course-perceptron-students", "course-other-students"]),
    "tok-tia": ("tia", ["course-perceptron-tas"]),
    "tok-ian": ("ian", ["course-perceptron-instructors", "course-other-students"]),
    "tok-oli": ("oli", ["course-other-instructors"]),
    "tok-nogroups": ("ned", None),
}


async def members(group):
    return sorted(name for name, groups in PEOPLE.values() if groups and group in groups)


async def identify(token):
    if token not in PEOPLE:
        return None
    name, groups = PEOPLE[token]
    return {"name": name} if groups is None else {"name": name, "groups": groups}


class Running:
    def __init__(self, store, limits=None):
        self.store = store
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve():
            asyncio.set_event_loop(self.loop)
            self.app = make_app(store, identify, members=members, prefix="/services/course-exchange/", limits=limits)
            self.server = GuardedHTTPServer(self.app, **server_settings(limits or Limits()))
            self.server.guard = ConnectionGuard((limits or Limits()).exchange_connections_per_user)
            sockets = bind_sockets(0, "127.0.0.1")
            self.server.add_sockets(sockets)
            self.port = sockets[0].getsockname()[1]
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        ready.wait(10)
        self.url = f"http://127.0.0.1:{self.port}/services/course-exchange"

    @property
    def transfers(self):
        """The service's :class:`~perceptron_course.hub.service.Transfers`: what it has admitted, for a test to wait
        on (the service runs in another thread, so a request sent is not yet a request seen)."""
        return self.app.wildcard_router.rules[0].target_kwargs["transfers"]

    def client(self, who):
        return ExchangeClient(self.url, f"tok-{who}")

    def stop(self):
        self.loop.call_soon_threadsafe(self.server.stop)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def exchange(tmp_path):
    running = Running(Store(str(tmp_path / "store")))
    yield running
    running.stop()
