"""Who holds the course exchange's connections, and how many each may hold at once.

Every user of the hub's machine can open TCP connections to the exchange's port on 127.0.0.1: the students'
servers must reach it. A student who opened thousands of connections and left them idle would take every file
descriptor the exchange may have (and its memory: each connection holds its buffers and its TLS state), and
then no one could submit. So the exchange asks the kernel who owns the other end of each connection from this
machine, as ``ss --extended`` does (``NETLINK_SOCK_DIAG``: the uid of the peer's socket, which no user can set),
and holds each user to :attr:`~perceptron_course.limits.Limits.exchange_connections_per_user` open at once; one
more is closed as soon as it is accepted, before any of it is read. Root (the hub, its proxy, the instructor's
commands run as root) and the exchange's own user are not held. A connection from another machine (the servers
of a Kubernetes cluster) has no local owner: it is held by its address.

When the kernel cannot say who owns a connection (no ``NETLINK_SOCK_DIAG``), nothing is held, and the exchange
logs that once.
"""

import ipaddress
import logging
import socket
import struct

__all__ = ["ConnectionGuard", "socket_owner"]

log = logging.getLogger("course-exchange")

_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST = 1
_NLMSG_ERROR = 2
_ALL_STATES = 0xFFFFFFFF
_NO_COOKIE = 0xFFFFFFFF
# struct nlmsghdr (16 bytes), then struct inet_diag_msg: 4 bytes of family, state, timer and retransmits, the
# socket's id (48 bytes), then expires, rqueue and wqueue (4 bytes each), then uid and inode.
_UID_OFFSET = 16 + 4 + 48 + 12


def _address(family, host):
    return socket.inet_pton(family, host).ljust(16, b"\0")


def socket_owner(family, source, destination):
    """The uid that owns the TCP socket of this machine whose local end is ``source`` and whose other end is
    ``destination`` (``(host, port)`` each, numeric); ``None`` when there is no such socket. ``OSError`` when the
    kernel cannot be asked."""
    request = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, _ALL_STATES)
    request += struct.pack("!HH", source[1], destination[1]) + _address(family, source[0]) + _address(
        family, destination[0])
    request += struct.pack("=III", 0, _NO_COOKIE, _NO_COOKIE)
    header = struct.pack("=IHHII", 16 + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, 1, 0)
    with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG) as netlink:
        netlink.settimeout(1.0)
        netlink.send(header + request)
        reply = netlink.recv(8192)
    if len(reply) < 16 or struct.unpack_from("=H", reply, 4)[0] == _NLMSG_ERROR or len(reply) < _UID_OFFSET + 4:
        return None
    return struct.unpack_from("=I", reply, _UID_OFFSET)[0]


def _local(host):
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


class ConnectionGuard:
    """Admits a new connection, or not, by how many its owner holds open already (see the module's docstring)."""

    def __init__(self, per_owner, *, exempt_uids=(0,), owner_of=socket_owner):
        self.per_owner = per_owner
        self.exempt_uids = frozenset(exempt_uids)
        self.owner_of = owner_of
        self.open = {}  # owner -> the streams it holds, closed ones pruned when it connects again
        self._told = set()  # owners told of in the log, once each until they are under the limit again
        self._blind = False

    def owner(self, sock):
        """``("uid", n)`` for a connection from this machine, ``("address", host)`` for one from another, or
        ``None`` when it is not held (an exempt uid, or no answer from the kernel)."""
        peer, local = sock.getpeername(), sock.getsockname()
        if not _local(peer[0]):
            return ("address", peer[0])
        try:
            uid = self.owner_of(sock.family, peer[:2], local[:2])
        except OSError as exc:
            if not self._blind:
                self._blind = True
                log.error("connections are NOT held per user: the kernel cannot say who owns them (%s)", exc)
            return None
        return None if uid is None or uid in self.exempt_uids else ("uid", uid)

    def admit(self, stream):
        """Whether ``stream`` (a new connection, not yet read) may stay open; counted against its owner if so."""
        try:
            owner = self.owner(stream.socket)
        except OSError:  # gone already
            return False
        if owner is None:
            return True
        held = [kept for kept in self.open.get(owner, ()) if not kept.closed()]
        if len(held) >= self.per_owner:
            if owner not in self._told:
                self._told.add(owner)
                log.warning("%s %s holds %d connections to the exchange at once, its limit "
                            "(Autograder.exchange_connections_per_user): more are closed as they come",
                            *owner, len(held))
            self.open[owner] = held
            return False
        self._told.discard(owner)
        held.append(stream)
        self.open[owner] = held
        if len(self.open) > 4 * 1024:  # owners who hold nothing any more
            self.open = {key: kept for key, kept in self.open.items() if any(not s.closed() for s in kept)}
        return True
