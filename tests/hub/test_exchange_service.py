"""The course exchange's rules, in process: who may release, fetch, submit, collect and give feedback.

Each test is a person at the exchange's door with a hub token; the hub's
answer about the token (name and groups) is stood in by conftest.PEOPLE.
"""

import base64
import json
import os
import urllib.request

import pytest

from perceptron_course.hub.client import ExchangeClient, ExchangeClientError
from perceptron_course.hub.courses import group_name, roles_from_groups
from perceptron_course.hub.store import Store
from perceptron_course.hub.transfer import (File, TransferError, check_path, encode_files, files_from_folder,
                                            parse_files)
from perceptron_course.limits import Limits

NOTEBOOK = File("ps1_hyperplanes.ipynb", b'{"cells": []}')


def released(exchange, assignment="ps1_hyperplanes"):
    exchange.client("ian").release("perceptron", assignment, [NOTEBOOK, File("data/points.csv", b"1,2\n")])


def refused(call, status, *words):
    with pytest.raises(ExchangeClientError) as info:
        call()
    assert info.value.status == status, str(info.value)
    for word in words:
        assert word in str(info.value), str(info.value)
    return str(info.value)


def test_roles_come_from_the_hub_groups_only():
    assert roles_from_groups(["course-perceptron-students", "course-perceptron-tas", "course-x-y-instructors",
                              "other", "course--students", "course-../x-students"]) == \
        {"perceptron": "ta", "x-y": "instructor"}
    assert group_name("perceptron", "ta") == "course-perceptron-tas"
    with pytest.raises(ValueError, match="course id"):
        group_name("../etc", "student")


def test_a_student_fetches_and_submits_and_every_submission_is_kept_with_the_exchanges_time(exchange):
    released(exchange)
    ann = exchange.client("ann")
    assert ann.courses() == {"perceptron": "student"}
    listing = ann.released()
    assert [(a["course"], a["assignment"]) for a in listing] == [("perceptron", "ps1_hyperplanes")]
    files = ann.fetch("perceptron", "ps1_hyperplanes")
    assert {f.path: f.data for f in files} == {"ps1_hyperplanes.ipynb": NOTEBOOK.data, "data/points.csv": b"1,2\n"}
    first = ann.submit("perceptron", "ps1_hyperplanes", [File("ps1_hyperplanes.ipynb", b"first")])
    second = ann.submit("perceptron", "ps1_hyperplanes", [File("ps1_hyperplanes.ipynb", b"second")])
    assert first["stamp"] < second["stamp"] and first["student"] == "ann"
    mine = ann.submissions("perceptron", "ps1_hyperplanes")
    assert [s["stamp"] for s in mine] == [first["stamp"], second["stamp"]]
    assert ann.submission_files("perceptron", "ps1_hyperplanes", "ann", first["stamp"])[0].data == b"first"


def test_a_student_reaches_nothing_of_another_student(exchange):
    released(exchange)
    ann, bob = exchange.client("ann"), exchange.client("bob")
    stamp = ann.submit("perceptron", "ps1_hyperplanes", [NOTEBOOK])["stamp"]
    assert bob.submissions("perceptron", "ps1_hyperplanes") == []
    refused(lambda: bob.submissions("perceptron", "ps1_hyperplanes", "ann"), 403, "only their own")
    refused(lambda: bob.submission_files("perceptron", "ps1_hyperplanes", "ann", stamp), 403)
    refused(lambda: bob.feedback_files("perceptron", "ps1_hyperplanes", "ann", stamp), 403)
    refused(lambda: bob.give_feedback("perceptron", "ps1_hyperplanes", "ann", stamp, [File("a.html", b"x")]), 403)
    # A submission is always the caller's: nothing in the request names the student.
    bob.submit("perceptron", "ps1_hyperplanes", [File("ps1_hyperplanes.ipynb", b"bob's")])
    assert [s["student"] for s in exchange.client("tia").submissions("perceptron", "ps1_hyperplanes")] == ["ann", "bob"]
    assert ann.submission_files("perceptron", "ps1_hyperplanes", "ann", stamp)[0].data == NOTEBOOK.data


def test_students_cannot_release_take_back_or_act_in_a_course_they_are_not_in(exchange):
    released(exchange)
    ann = exchange.client("ann")
    refused(lambda: ann.release("perceptron", "ps9", [NOTEBOOK]), 403, "ann is a student of perceptron")
    refused(lambda: ann.unrelease("perceptron", "ps1_hyperplanes"), 403)
    refused(lambda: ann.fetch("other", "x"), 403, "not in other")
    refused(lambda: ann.submit("other", "x", [NOTEBOOK]), 403, "not in other")
    refused(lambda: ann.released("other"), 403)
    # An instructor of one course is nobody in another, and a TA does not release.
    refused(lambda: exchange.client("oli").submissions("perceptron", "ps1_hyperplanes"), 403)
    refused(lambda: exchange.client("tia").release("perceptron", "ps9", [NOTEBOOK]), 403, "a ta of perceptron")
    refused(lambda: exchange.client("tia").submit("perceptron", "ps1_hyperplanes", [NOTEBOOK]), 403)


def test_two_courses_are_apart(exchange):
    released(exchange)
    exchange.client("oli").release("other", "week1", [File("week1.ipynb", b"{}")])
    bob = exchange.client("bob")
    assert bob.courses() == {"perceptron": "student", "other": "student"}
    assert sorted((a["course"], a["assignment"]) for a in bob.released()) == \
        [("other", "week1"), ("perceptron", "ps1_hyperplanes")]
    bob.submit("other", "week1", [File("week1.ipynb", b"mine")])
    assert exchange.client("ian").submissions("perceptron", "week1") == []
    refused(lambda: bob.submit("perceptron", "week1", [NOTEBOOK]), 404, "not released")


def test_no_token_a_wrong_token_or_one_without_groups_is_refused(exchange):
    request = urllib.request.Request(exchange.url + "/api/courses")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request)
    assert info.value.code == 401
    refused(lambda: ExchangeClient(exchange.url, "forged").courses(), 403, "does not accept this token")
    refused(lambda: ExchangeClient(exchange.url, "tok-nogroups").courses(), 403, "read:users:groups")


def test_staff_see_the_roster_from_the_hub_groups_and_students_do_not(exchange):
    assert exchange.client("tia").roster("perceptron") == {"course": "perceptron", "student": ["ann", "bob"],
                                                           "ta": ["tia"], "instructor": ["ian"]}
    refused(lambda: exchange.client("ann").roster("perceptron"), 403, "see its roster")


def test_feedback_goes_to_its_student_and_submission_only(exchange):
    released(exchange)
    stamp = exchange.client("ann").submit("perceptron", "ps1_hyperplanes", [NOTEBOOK])["stamp"]
    ian = exchange.client("ian")
    ian.give_feedback("perceptron", "ps1_hyperplanes", "ann", stamp, [File("ps1_hyperplanes.html", b"<p>9/10</p>")])
    record = exchange.client("ann").submissions("perceptron", "ps1_hyperplanes")[0]
    assert record["feedback"][0]["path"] == "ps1_hyperplanes.html"
    assert exchange.client("ann").feedback_files("perceptron", "ps1_hyperplanes", "ann", stamp)[0].data == \
        b"<p>9/10</p>"
    refused(lambda: ian.give_feedback("perceptron", "ps1_hyperplanes", "bob", stamp, [NOTEBOOK]), 404, "no submission")
    refused(lambda: ian.give_feedback("perceptron", "ps1_hyperplanes", "ann", "../../x", [NOTEBOOK]), 400,
            "not a submission's time")


@pytest.mark.parametrize("path", ["/etc/passwd", "../x.ipynb", "a/../../x", ".hidden", "a/.git/config", "a\\b",
                                  "a\x00b", "", "a//b", "x" * 600, "\u202egnp.ipynb", "a\u200bb.ipynb",
                                  "a\u0085b", "z\udcff.ipynb", "é" * 128, "a/" * 9 + "x.ipynb"])
def test_a_path_that_leaves_the_folder_or_hides_is_refused(exchange, path):
    released(exchange)
    body = json.dumps({"files": [{"path": path, "content": base64.b64encode(b"x").decode()}]}).encode()
    request = urllib.request.Request(exchange.url + "/api/submissions/perceptron/ps1_hyperplanes", data=body,
                                     method="POST", headers={"Authorization": "token tok-ann"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request)
    assert info.value.code == 400
    assert exchange.client("tia").submissions("perceptron", "ps1_hyperplanes") == []
    assert check_path(path) is not None


def test_a_submission_over_the_limit_is_refused_with_the_limit_named_and_nothing_else_lost(tmp_path):
    from tests.hub.conftest import Running

    limits = Limits().replace(exchange_bytes=1000, exchange_files=3)
    running = Running(Store(str(tmp_path / "store")), limits=limits)
    try:
        running.client("ian").release("perceptron", "ps1", [NOTEBOOK])
        ann = running.client("ann")
        kept = ann.submit("perceptron", "ps1", [NOTEBOOK])
        message = refused(lambda: ann.submit("perceptron", "ps1", [File("big.ipynb", b"x" * 5000)]), 413,
                          "at most 1,000", "exchange_bytes")
        assert "Remove large data" in message
        refused(lambda: ann.submit("perceptron", "ps1", [File(f"f{i}.ipynb", b"x") for i in range(4)]), 413,
                "exchange_files")
        assert [s["stamp"] for s in ann.submissions("perceptron", "ps1")] == [kept["stamp"]]
    finally:
        running.stop()


def test_without_limits_given_the_exchange_and_the_students_side_hold_the_courses_recorded_ones(tmp_path,
                                                                                                monkeypatch):
    """The hub's exchange and its clients run from the student package, which records the course's limits
    (``c.Autograder.exchange_files`` in its nbgrader_config.py): a course's own values must hold there, not the
    defaults."""
    import perceptron_course.limits as limits_module
    from tests.hub.conftest import Running

    recorded = tmp_path / "course_limits.json"
    recorded.write_text(json.dumps({"exchange_files": 2, "exchange_depth": 1}), encoding="utf-8")
    monkeypatch.setattr(limits_module, "COURSE_LIMITS_FILE", str(recorded))
    folder = tmp_path / "work"
    folder.mkdir()
    for name in ("a.ipynb", "b.ipynb", "c.ipynb"):
        (folder / name).write_text("{}", encoding="utf-8")
    with pytest.raises(TransferError, match=r"at most 2 \(Autograder.exchange_files\)"):
        files_from_folder(str(folder))
    body = json.dumps({"files": [{"path": name, "content": ""} for name in ("a", "b", "c")]})
    with pytest.raises(TransferError, match="exchange_files"):
        parse_files(body)
    assert check_path("data/more/points.csv") is not None and check_path("data/points.csv") is None
    running = Running(Store(str(tmp_path / "store")))  # the exchange, given no limits
    try:
        refused(lambda: running.client("ian").release("perceptron", "ps1", [File(n, b"{}") for n in "abc"]), 413,
                "at most 2", "exchange_files")
    finally:
        running.stop()


def test_a_student_keeps_at_most_so_many_submissions_and_every_earlier_one_stays(tmp_path):
    from tests.hub.conftest import Running

    running = Running(Store(str(tmp_path / "store")), limits=Limits().replace(exchange_submissions=2))
    try:
        running.client("ian").release("perceptron", "ps1", [NOTEBOOK])
        ann = running.client("ann")
        kept = [ann.submit("perceptron", "ps1", [NOTEBOOK])["stamp"] for _ in range(2)]
        refused(lambda: ann.submit("perceptron", "ps1", [NOTEBOOK]), 400, "2 times", "exchange_submissions")
        assert [s["stamp"] for s in ann.submissions("perceptron", "ps1")] == kept
        running.client("bob").submit("perceptron", "ps1", [NOTEBOOK])  # a quota per student
    finally:
        running.stop()


def test_a_store_folder_someone_else_made_is_refused(tmp_path):
    from perceptron_course.hub.store import StoreError

    os.symlink(tmp_path / "elsewhere", tmp_path / "store")
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(StoreError, match="folder it made itself"):
        Store(str(tmp_path / "store"))


def test_a_write_that_fails_half_way_leaves_nothing_behind(tmp_path, monkeypatch):
    from perceptron_course.hub.store import StoreError

    store = Store(str(tmp_path / "store"))
    store.release("perceptron", "ps1", [NOTEBOOK])
    real_fdopen = os.fdopen
    calls = []

    def full_disk(fd, *args, **kwargs):
        calls.append(fd)
        if len(calls) == 2:
            os.close(fd)
            raise OSError(28, "No space left on device")
        return real_fdopen(fd, *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", full_disk)
    with pytest.raises(StoreError, match="No space left on device"):
        store.submit("perceptron", "ps1", "ann", [File("a.ipynb", b"1"), File("b.ipynb", b"2")])
    monkeypatch.undo()
    assert os.listdir(tmp_path / "store" / ".scratch") == []
    assert store.submissions("perceptron", "ps1") == []


def test_the_store_is_private_and_a_crashed_write_leaves_nothing(tmp_path):
    root = tmp_path / "store"
    store = Store(str(root))
    assert os.stat(root).st_mode & 0o777 == 0o700
    (root / ".scratch" / "half").mkdir()
    Store(str(root))
    assert not (root / ".scratch" / "half").exists()


def test_files_from_a_folder_refuse_links_and_skip_what_nbgrader_ignores(tmp_path):
    (tmp_path / "ps1.ipynb").write_bytes(b"{}")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "ps1-checkpoint.ipynb").write_bytes(b"{}")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"0")
    assert [f.path for f in files_from_folder(tmp_path, ignore=["__pycache__", "*.pyc"])] == ["ps1.ipynb"]
    os.symlink("/etc/passwd", tmp_path / "stolen.txt")
    with pytest.raises(TransferError, match="stolen.txt is a symbolic link"):
        files_from_folder(tmp_path)


def test_a_body_that_is_not_what_the_exchange_reads_is_named():
    for body in (b"\xff", b"[]", b'{"files": {}}', b'{"other": []}'):
        with pytest.raises(TransferError, match="does not begin as the exchange's format does"):
            parse_files(body)
    # The one shape of JSON its client writes, with any whitespace, and nothing else: keys in another order,
    # another key, a comma too many, anything after the end.
    assert parse_files(json.dumps({"files": [{"path": "a", "content": "aGk="}]}, indent=2)) == (File("a", b"hi"),)
    assert parse_files(b'{"files":[]}') == ()
    for body in ('{"files": [{"content": "", "path": "a"}]}', '{"files": [{"path": "a", "content": "", "x": 1}]}',
                 '{"files": [{"path": "a", "content": ""},]}', '{"files": []} []', '{"files": [1]}'):
        with pytest.raises(TransferError, match="not in the exchange's format at byte"):
            parse_files(body)
    with pytest.raises(TransferError, match="not a JSON string of UTF-8 text"):
        parse_files(b'{"files": [{"path": "\xff.ipynb", "content": ""}]}')
    with pytest.raises(TransferError, match="not a JSON string"):
        parse_files(b'{"files": [{"path": "a\\q", "content": ""}]}')
    for content in ("aGk", "aG=k", "aGk=aGk=", "\\/w=="):
        with pytest.raises(TransferError, match="not base64|not in the exchange's format"):
            parse_files('{"files": [{"path": "a", "content": "%s"}]}' % content)
    with pytest.raises(TransferError, match="not base64"):
        parse_files(json.dumps({"files": [{"path": "a", "content": "!!"}]}))
    with pytest.raises(TransferError, match="twice"):
        parse_files(json.dumps({"files": [{"path": "a", "content": ""}, {"path": "A", "content": ""}]}))
    with pytest.raises(TransferError, match="beside 'a', a name that looks the same or a file where the other has"):
        parse_files(json.dumps({"files": [{"path": "a", "content": ""}, {"path": "a/b", "content": ""}]}))


def test_what_the_exchange_keeps_it_can_send_back_however_the_upload_was_written():
    """An upload may be written more tightly than the exchange writes its replies (raw UTF-8 names, no spaces):
    a path of 511 characters above U+FFFF, and a body within the limit whose reply would not be, are either
    refused at the upload or read back whole, never kept and then unreadable."""
    from perceptron_course.hub.transfer import encoded_length

    def compact(files):
        return (b'{"files":[' + b",".join(b'{"path":"' + f.path.encode() + b'","content":"'
                                           + base64.b64encode(f.data) + b'"}' for f in files) + b"]}")

    limits = Limits().replace(exchange_bytes=2**20)
    long_path = "/".join([f"{k}" + "\U0001F600" * 62 for k in range(8)])  # 511 characters, 7 folders deep
    assert check_path(long_path, limits.exchange_depth) is None
    one = [File(long_path, b"x")]
    for body in (compact(one), encode_files(one), json.dumps({"files": [{"path": long_path, "content": "eA=="}]})):
        kept = parse_files(body, limits)
        assert kept == tuple(one) and parse_files(encode_files(kept), limits) == kept
    # 200 files with names of 2 KB: written tightly, the body fits with 100 bytes to spare; as the exchange writes
    # it, it would not, so it is refused at the upload, naming the limit.
    names = ["/".join([f"{k:03d}{j}" + "\U0001F600" * 59 for j in range(8)]) for k in range(200)]  # 511 each
    files = [File(name, b"") for name in names]
    room = (limits.exchange_body_bytes - 100 - len(compact(files))) // 4 * 3
    assert 0 < room <= limits.exchange_bytes
    files[0] = File(names[0], os.urandom(room))
    body = compact(files)
    assert limits.exchange_body_bytes - 103 <= len(body) <= limits.exchange_body_bytes
    assert encoded_length(files) == len(encode_files(files)) > limits.exchange_body_bytes
    with pytest.raises(TransferError, match="one upload to the exchange holds at most") as refused_body:
        parse_files(body, limits)
    assert refused_body.value.too_large
    # With room for the exchange's spaces, the same files are kept and read back.
    files[0] = File(names[0], os.urandom(room - 1200))
    kept = parse_files(compact(files), limits)
    assert parse_files(encode_files(kept), limits) == kept


def test_names_a_reader_cannot_tell_apart_are_refused():
    for path in ("a\u2028b.ipynb", " ", "a /b.ipynb", "notes.ipynb\u00a0"):
        assert check_path(path) is not None, path
    assert check_path("my notes.ipynb") is None
    for pair in (("\u00e9.ipynb", "e\u0301.ipynb"), ("a.ipynb", "\uff41.ipynb"), ("A.ipynb", "a.ipynb")):
        body = json.dumps({"files": [{"path": name, "content": ""} for name in pair]})
        with pytest.raises(TransferError, match="looks the same"):
            parse_files(body)


@pytest.mark.parametrize("shape", ["empty objects", "numbers", "nested lists", "empty strings"])
def test_a_body_costs_no_more_memory_than_its_length_whatever_its_shape(shape):
    """A general JSON parser makes a Python object of about 70 bytes of each ``{},`` (27 times the body, 1.8 GB for
    one upload within the limits) and recurses on nesting; the exchange's reader refuses such bodies at their
    first wrong byte, and takes an honest body with at most its own length again."""
    import time
    import tracemalloc

    limits = Limits().replace(exchange_bytes=3 * 2**20)
    n = limits.exchange_body_bytes // 4
    filler = {"empty objects": b"{},", "numbers": b"1,", "nested lists": b"[", "empty strings": b'"",'}[shape]
    hostile = (b'{"files": [' + filler * n)[:limits.exchange_body_bytes - 4] + b"{}]}"
    honest = encode_files([File(f"data/{k}.bin", os.urandom(2**20 - 10)) for k in range(3)])
    for body, refused_at in ((hostile, 11), (honest, None)):
        tracemalloc.start()
        started = time.monotonic()
        try:
            if refused_at is None:
                assert [len(f.data) for f in parse_files(body, limits)] == [2**20 - 10] * 3
            else:
                with pytest.raises(TransferError, match=f"not in the exchange's format at byte {refused_at}"):
                    parse_files(body, limits)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak <= (len(body) if refused_at is None else 64 * 1024), (shape, len(body), peak)
        assert time.monotonic() - started < 5


SUBMIT = "/services/course-exchange/api/submissions/perceptron/ps1"


def request_head(length, who="ann", method="POST", path=SUBMIT):
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token tok-{who}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n").encode()


def held_upload(running, length, who="ann", *, admitted=0):
    """A connection that announces an upload of ``length`` bytes, sends a little of it and holds the rest; with
    ``admitted=n``, it returns once the service holds n transfers of ``who`` in progress, this one among them (the
    service runs in another thread: a request sent is not yet a request seen, and one just answered may not yet
    have let go of its share)."""
    import socket
    import time

    sock = socket.create_connection(("127.0.0.1", running.port), timeout=10)
    sock.sendall(request_head(length, who) + b'{"files": [')
    give_up = time.monotonic() + 10
    while admitted and running.transfers.by_user.get(who, 0) != admitted:
        assert time.monotonic() < give_up, (f"the service holds {running.transfers.by_user.get(who, 0)} transfers of "
                                            f"{who}, not {admitted}, after her upload of {length:,} bytes")
        time.sleep(0.01)
    return sock


def test_a_body_larger_than_any_request_is_refused_unread_and_a_trickling_one_is_cut_off(tmp_path):
    """The exchange refuses a body over ``exchange_body_bytes`` from its announced length, naming the limit,
    before reading it, and waits at most ``exchange_upload_seconds`` for one it admitted
    (service.server_settings), and serves everyone else meanwhile."""
    import socket
    import time

    from tests.hub.conftest import Running

    limits = Limits().replace(exchange_bytes=1000, exchange_files=3, exchange_upload_seconds=1.0)
    running = Running(Store(str(tmp_path / "store")), limits=limits)

    try:
        running.client("ian").release("perceptron", "ps1", [NOTEBOOK])
        # Three times the largest body, announced: refused from the head alone, with nothing of the body sent.
        with socket.create_connection(("127.0.0.1", running.port), timeout=10) as sock:
            sock.sendall(request_head(3 * limits.exchange_body_bytes))
            answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 413"), answer
        assert b"Autograder.exchange_bytes" in answer, answer
        # Someone the hub does not know (anyone, through the hub's public proxy) is answered from the head alone,
        # and the connection closed with the body unread: nobody can hold the exchange's connections open so.
        with socket.create_connection(("127.0.0.1", running.port), timeout=10) as sock:
            sock.sendall(request_head(5000, who="nobody"))
            answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 403") and b"does not accept this token" in answer, answer
            while answer:
                answer = sock.recv(4096)
        # A student's body the exchange refuses (an upload where only instructors may send one) is read and dropped,
        # so that her client reads the reason; each holds one of her transfers meanwhile, and past them she is
        # answered at once too.
        release = "/services/course-exchange/api/assignments/perceptron/ps2"
        held = []
        for _ in range(limits.exchange_transfers_per_user):
            held.append(socket.create_connection(("127.0.0.1", running.port), timeout=10))
            held[-1].sendall(request_head(500, method="PUT", path=release))
        give_up = time.monotonic() + 10
        while running.transfers.by_user.get("ann", 0) != len(held):  # the service runs in another thread
            assert time.monotonic() < give_up, running.transfers.by_user
            time.sleep(0.01)
        with socket.create_connection(("127.0.0.1", running.port), timeout=10) as sock:
            sock.sendall(request_head(500, method="PUT", path=release))
            answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 403") and b"cannot release" in answer, answer
        for sock in held:
            sock.sendall(b" " * 500)
            answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 403") and b"cannot release" in answer, answer
            sock.close()
        # A body that stops arriving: the connection is closed once the upload's time is up (a server that
        # held it open would let the socket's own timeout fail the test).
        with socket.create_connection(("127.0.0.1", running.port), timeout=10) as sock:
            sock.sendall(request_head(5000) + b'{"files": [')
            closed = sock.recv(4096)
        assert closed == b"" or closed.startswith(b"HTTP/1.1 4"), closed
        # Neither left anything behind, and the exchange still takes an honest submission.
        ann = running.client("ann")
        assert ann.submissions("perceptron", "ps1") == []
        ann.submit("perceptron", "ps1", [NOTEBOOK])
        assert len(ann.submissions("perceptron", "ps1")) == 1
    finally:
        running.stop()


def test_a_user_moves_at_most_so_many_files_at_once_and_a_held_upload_or_download_is_cut_off(tmp_path):
    """A student who opens uploads and never finishes them holds at most ``exchange_transfers_per_user`` of
    them, each at most ``exchange_upload_seconds``; meanwhile everyone else is served.  A download she does not
    read is cut off after the same time."""
    import socket
    import time

    from tests.hub.conftest import Running

    limits = Limits().replace(exchange_transfers_per_user=2, exchange_upload_seconds=1.5)
    running = Running(Store(str(tmp_path / "store")), limits=limits)
    try:
        big = File("data/big.bin", os.urandom(12 * 2**20))  # more than loopback's buffers take unread
        running.client("ian").release("perceptron", "ps1", [NOTEBOOK, big])
        ann, bob = running.client("ann"), running.client("bob")
        held = [held_upload(running, 5000, admitted=k) for k in (1, 2)]
        time.sleep(0.3)
        refused(lambda: ann.submit("perceptron", "ps1", [NOTEBOOK]), 429, "already has 2",
                "exchange_transfers_per_user")
        refused(lambda: ann.fetch("perceptron", "ps1"), 429, "exchange_transfers_per_user")
        bob.submit("perceptron", "ps1", [NOTEBOOK])
        assert ann.submissions("perceptron", "ps1") == []  # listing moves no files, so it is not held up
        for sock in held:  # cut off once the time is up
            closed = sock.recv(4096)
            assert closed == b"" or closed.startswith(b"HTTP/1.1 4"), closed
            sock.close()
        ann.submit("perceptron", "ps1", [NOTEBOOK])
        # A download of the big file, never read: it holds her one large transfer until it is cut off, then frees
        # it. (Her small ones go on meanwhile.)
        reader = socket.create_connection(("127.0.0.1", running.port), timeout=10)
        reader.sendall(request_head(0, method="GET", path="/services/course-exchange/api/assignments/perceptron/ps1"))
        time.sleep(0.5)
        refused(lambda: ann.fetch("perceptron", "ps1"), 429, "already moving a file of more than 1 MiB")
        ann.submit("perceptron", "ps1", [NOTEBOOK])
        time.sleep(2.0)
        assert {f.path: f.data for f in ann.fetch("perceptron", "ps1")}["data/big.bin"] == big.data
        reader.close()
    finally:
        running.stop()


# A student's process: opens connections to the exchange as the Linux user ``nobody`` and holds them, reports which
# ones the exchange closed at once, then lets them go and tries one more request.
HOLDER = r"""
import json, socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
held = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
time.sleep(1.0)
closed = []
for sock in held:
    sock.settimeout(0.2)
    try:
        closed.append(sock.recv(1) == b"")
    except (socket.timeout, ConnectionResetError) as exc:
        closed.append(isinstance(exc, ConnectionResetError))
print(json.dumps(closed), flush=True)
sys.stdin.readline()
for sock in held:
    sock.close()
time.sleep(0.5)
again = socket.create_connection(("127.0.0.1", port))
again.sendall(b"GET /services/course-exchange/api/courses HTTP/1.1\r\nHost: x\r\n\r\n")
print(json.dumps(again.recv(12).decode()), flush=True)
"""


@pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"),
                    reason="needs root, to run a process as another Linux user, and the system's python3")
def test_a_user_who_opens_many_connections_holds_only_so_many_and_everyone_else_is_served(tmp_path):
    """Connections left idle by one user of the machine are not allowed to take the exchange's file descriptors: past
    ``exchange_connections_per_user`` hers are closed as they are accepted, others' are served, and once she lets
    hers go she is served again."""
    import json
    import subprocess

    from tests.hub.conftest import Running

    running = Running(Store(str(tmp_path / "store")), limits=Limits().replace(exchange_connections_per_user=4))
    holder = None
    try:
        running.client("ian").release("perceptron", "ps1", [NOTEBOOK])
        holder = subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                   "/usr/bin/python3", "-c", HOLDER, str(running.port), "10"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/")
        closed = json.loads(holder.stdout.readline())
        assert closed == [False] * 4 + [True] * 6, closed
        guard = running.server.guard
        assert [len(held) for owner, held in guard.open.items() if owner[0] == "uid"] == [4]
        # Everyone else meanwhile: the test's own requests (as root, which is not held) and any number of them.
        running.client("ann").submit("perceptron", "ps1", [NOTEBOOK])
        assert len(running.client("ann").submissions("perceptron", "ps1")) == 1
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert json.loads(holder.stdout.readline()).startswith("HTTP/1.1 "), "served again once hers are closed"
    finally:
        if holder is not None:
            holder.kill()
            holder.wait()
        running.stop()


def test_the_owner_of_a_connection_from_this_machine_is_asked_of_the_kernel_and_one_from_elsewhere_is_its_address():
    import socket

    from perceptron_course.hub.connections import ConnectionGuard, socket_owner

    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        assert socket_owner(socket.AF_INET, client.getsockname(), listener.getsockname()) == os.getuid()
        assert socket_owner(socket.AF_INET, ("127.0.0.1", 1), listener.getsockname()) is None, "no such socket"
        guard = ConnectionGuard(2, exempt_uids=())
        assert guard.owner(accepted) == ("uid", os.getuid())
        assert ConnectionGuard(2).owner(accepted) is None or os.getuid() != 0, "root is not held"

        class Remote:
            family = socket.AF_INET

            def getpeername(self):
                return ("10.1.2.3", 40000)

            def getsockname(self):
                return ("10.1.2.4", 443)

        assert guard.owner(Remote()) == ("address", "10.1.2.3")
    finally:
        for sock in (client, accepted, listener):
            sock.close()


def test_large_transfers_share_the_exchanges_memory_and_one_more_waits_for_room(tmp_path, monkeypatch):
    """Large bodies from everyone together hold at most ``exchange_memory_bytes``: one more is asked to come
    back (503, Retry-After), which the client does, and small ones are never held up by them."""
    import threading
    import time

    import perceptron_course.hub.service as service
    from tests.hub.conftest import Running

    monkeypatch.setattr(service, "BUSY_RETRY_SECONDS", 1)
    limits = Limits().replace(exchange_bytes=3 * 2**20)
    limits = limits.replace(exchange_memory_bytes=limits.exchange_body_bytes)
    running = Running(Store(str(tmp_path / "store")), limits=limits)
    try:
        running.client("ian").release("perceptron", "ps1", [NOTEBOOK])
        large = [File("ps1.ipynb", b"x" * (2 * 2**20))]
        held = held_upload(running, limits.exchange_body_bytes, admitted=1)  # ann's upload takes all of it
        impatient = ExchangeClient(running.url, "tok-bob", busy_seconds=0)
        message = refused(lambda: impatient.submit("perceptron", "ps1", large), 503, "exchange_memory_bytes",
                          "try again")
        assert "other large files" in message
        impatient.submit("perceptron", "ps1", [NOTEBOOK])  # a small one goes through meanwhile
        threading.Timer(1.5, held.close).start()  # ann gives up; her share is freed
        patient = ExchangeClient(running.url, "tok-bob", busy_seconds=30)
        started = time.monotonic()
        record = patient.submit("perceptron", "ps1", large)
        assert time.monotonic() - started >= 1.0  # it waited for room, and then was taken
        assert patient.submission_files("perceptron", "ps1", "bob", record["stamp"])[0].data == large[0].data
    finally:
        running.stop()


def test_students_large_transfers_leave_room_for_the_courses_staff(tmp_path):
    """Where ``exchange_memory_bytes`` holds two of the largest bodies, students' large transfers together hold
    all but one of them: students holding large uploads open never keep the instructor from releasing or a TA
    from collecting, while one more student's large upload is asked to come back."""
    from tests.hub.conftest import Running

    limits = Limits().replace(exchange_bytes=3 * 2**20)
    limits = limits.replace(exchange_memory_bytes=2 * limits.exchange_body_bytes)
    running = Running(Store(str(tmp_path / "store")), limits=limits)
    held = []
    try:
        large = [File("ps1.ipynb", b"x" * (2 * 2**20))]
        ian = ExchangeClient(running.url, "tok-ian", busy_seconds=0)
        ian.release("perceptron", "ps1", [NOTEBOOK])
        stamp = running.client("bob").submit("perceptron", "ps1", large)["stamp"]
        held.append(held_upload(running, limits.exchange_body_bytes, admitted=1))  # all that students may hold
        message = refused(lambda: ExchangeClient(running.url, "tok-bob", busy_seconds=0).submit(
            "perceptron", "ps1", large), 503, "exchange_memory_bytes", "kept for the course's staff")
        assert f"less {limits.exchange_body_bytes:,} kept" in message
        # The staff's share: the instructor releases a large notebook, then a TA collects bob's large submission.
        ian.release("perceptron", "ps2", large)
        tia = ExchangeClient(running.url, "tok-tia", busy_seconds=0)
        assert tia.submission_files("perceptron", "ps1", "bob", stamp)[0].data == large[0].data
        # Only staff of the course the address names: ian is a student of "other", and his large submission
        # there waits with the students'.
        running.client("oli").release("other", "ps1", [NOTEBOOK])
        refused(lambda: ian.submit("other", "ps1", large), 503, "kept for the course's staff")
    finally:
        for sock in held:
            sock.close()
        running.stop()


def test_a_students_kept_submissions_to_a_course_take_at_most_so_much_disk(tmp_path):
    """Each submission is counted at what it takes on disk: its files in whole 4 KiB blocks, a block for each
    folder and its record. So a submission of 1,000 bytes in one file takes 16 KiB (the file, the two folders,
    the record), and empty files in deep folders are not free."""
    from tests.hub.conftest import Running

    limits = Limits().replace(exchange_bytes=1000, exchange_student_bytes=40_000)
    running = Running(Store(str(tmp_path / "store")), limits=limits)
    try:
        for assignment in ("ps1", "ps2"):
            running.client("ian").release("perceptron", assignment, [NOTEBOOK])
        ann = running.client("ann")
        kept = [ann.submit("perceptron", "ps1", [File("ps1.ipynb", b"x" * 1000)])["stamp"],
                ann.submit("perceptron", "ps2", [File("ps2.ipynb", b"x" * 1000)])["stamp"]]
        message = refused(lambda: ann.submit("perceptron", "ps2", [File("ps2.ipynb", b"x" * 10)]), 413,
                          "take 32,768 bytes", "16,384 more", "Autograder.exchange_student_bytes")
        assert "ann's kept submissions to perceptron" in message
        assert [s["stamp"] for s in ann.submissions("perceptron", "ps1")] == kept[:1]
        assert len(ann.submissions("perceptron", "ps2")) == 1
        running.client("bob").submit("perceptron", "ps1", [File("ps1.ipynb", b"x" * 1000)])  # each student's own
        # Three empty files, each in folders of its own three deep: nine folders, nothing in the files.
        empty = [File(f"{n}/a/b/c.ipynb", b"") for n in "xyz"]
        message = refused(lambda: running.client("bob").submit("perceptron", "ps2", empty), 413, "bob's")
        # 4 KiB for each of the 3 files, the 9 folders, the files' folder, the submission's, the record.
        assert "and this one 61,440 more" in message
    finally:
        running.stop()


def test_the_quota_counts_empty_files_and_long_names_at_what_they_take_on_disk(tmp_path):
    """200 empty files with names of 255 bytes, side by side: each file a block, and their folder as many blocks as
    its entries fill (200 of 264 bytes: 13), at least what the store's folder really takes (du)."""
    from perceptron_course.hub.store import BLOCK

    store = Store(str(tmp_path / "store"))
    store.release("perceptron", "ps1", [NOTEBOOK])
    files = [File(f"{k:03d}" + "n" * 252, b"") for k in range(200)]
    record = store.submit("perceptron", "ps1", "ann", files, student_bytes=2**20)
    assert record["disk_bytes"] >= BLOCK * (200 + 13 + 1) + BLOCK
    folder = tmp_path / "store" / "perceptron"
    used = sum(os.lstat(p).st_blocks * 512 for p in (folder / "submissions").rglob("*"))  # as du counts it
    assert used <= record["disk_bytes"], (used, record["disk_bytes"])


def test_limits_that_would_refuse_every_largest_submission_are_named():
    from perceptron_course.limits import LimitsError

    with pytest.raises(LimitsError, match=r"exchange_memory_bytes \(1,000\) is less than one upload"):
        Limits().replace(exchange_memory_bytes=1000)
    with pytest.raises(LimitsError, match=r"exchange_student_bytes .* is less than one submission"):
        Limits().replace(exchange_bytes=300 * 2**20, exchange_memory_bytes=2**30)


def test_only_those_who_may_upload_there_hold_a_share_and_a_length_that_is_no_number_is_named(tmp_path):
    """Who may send a body where is checked from the request's head: someone not in the course, or a body sent
    where no upload is taken, holds no share of the exchange's memory however long it takes; each user moves one
    large body at a time; and a ``Content-Length`` that is not a number of bytes is answered 400, not 500."""
    import socket

    from tests.hub.conftest import Running

    limits = Limits().replace(exchange_bytes=3 * 2**20)
    limits = limits.replace(exchange_memory_bytes=limits.exchange_body_bytes)  # one large body at a time
    running = Running(Store(str(tmp_path / "store")), limits=limits)
    held = []
    try:
        running.client("ian").release("perceptron", "ps1", [NOTEBOOK])
        large = [File("ps1.ipynb", b"x" * (2 * 2**20))]
        held += [held_upload(running, limits.exchange_body_bytes, who="oli") for _ in range(2)]  # not in the course
        courses = socket.create_connection(("127.0.0.1", running.port), timeout=10)  # no upload is taken there
        courses.sendall(request_head(limits.exchange_body_bytes, who="bob",
                                     path="/services/course-exchange/api/courses"))
        held.append(courses)
        ann = ExchangeClient(running.url, "tok-ann", busy_seconds=0)
        ann.submit("perceptron", "ps1", large)  # none of them holds any of the exchange's memory
        held.append(held_upload(running, limits.exchange_body_bytes, admitted=1))  # ann's own: all of it
        refused(lambda: ann.submit("perceptron", "ps1", large), 429, "already moving a file of more than 1 MiB")
        refused(lambda: ExchangeClient(running.url, "tok-bob", busy_seconds=0).submit("perceptron", "ps1", large),
                503, "exchange_memory_bytes")
        for length in ("abc", "10, 11", "\u00b2"):
            with socket.create_connection(("127.0.0.1", running.port), timeout=10) as sock:
                sock.sendall(request_head(length).replace(b"\xc2\xb2", "\u00b2".encode("latin-1")))
                answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 400") and b"Content-Length must be a number" in answer, answer
    finally:
        for sock in held:
            sock.close()
        running.stop()


def test_collecting_goes_past_a_submission_it_cannot_fetch_and_keeps_an_earlier_copy_until_the_new_one_is_whole(
        tmp_path, monkeypatch):
    """nbgrader's collect through the course exchange (``--update``): a submission that cannot be fetched is named
    at the end, after every other student's is collected, and the copy of it collected before stays as it was."""
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeError

    from perceptron_course.hub import client as client_module
    from perceptron_course.hub.nbgrader_exchange import ExchangeCollect
    from tests.hub.conftest import Running

    running = Running(Store(str(tmp_path / "store")))
    monkeypatch.setenv("COURSE_EXCHANGE_URL", running.url)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "tok-ian")
    try:
        running.client("ian").release("perceptron", "ps1", [NOTEBOOK])
        for who in ("ann", "bob"):
            running.client(who).submit("perceptron", "ps1", [File("ps1.ipynb", f"first of {who}".encode())])

        def collect():
            coursedir = CourseDirectory(root=str(tmp_path / "course"), course_id="perceptron", assignment_id="ps1")
            ExchangeCollect(coursedir=coursedir, update=True).start()

        collect()
        submitted = tmp_path / "course" / "submitted"
        assert (submitted / "ann" / "ps1" / "ps1.ipynb").read_bytes() == b"first of ann"
        for who in ("ann", "bob"):
            running.client(who).submit("perceptron", "ps1", [File("ps1.ipynb", f"second of {who}".encode())])
        # The exchange fails while giving ann's new submission (as a dropped connection would): bob's is collected
        # all the same, and ann's earlier copy is still whole, its time with it.
        real = client_module.ExchangeClient.submission_files

        def failing(self, course, assignment, student, stamp):
            if student == "ann":
                raise client_module.ExchangeClientError("the connection to the course exchange was reset")
            return real(self, course, assignment, student, stamp)

        monkeypatch.setattr(client_module.ExchangeClient, "submission_files", failing)
        kept_time = (submitted / "ann" / "ps1" / "timestamp.txt").read_text()
        with pytest.raises(ExchangeError, match=r"1 submission\(s\) of ps1 were not collected.*ann \(the connection"):
            collect()
        assert (submitted / "bob" / "ps1" / "ps1.ipynb").read_bytes() == b"second of bob"
        assert (submitted / "ann" / "ps1" / "ps1.ipynb").read_bytes() == b"first of ann"
        assert (submitted / "ann" / "ps1" / "timestamp.txt").read_text() == kept_time
        assert sorted(p.name for p in (submitted / "ann").iterdir()) == ["ps1"]
        # A crash between the swap's two renames left her earlier copy moved aside and a half-written one: the next
        # collect, whose fetch fails again, puts the earlier copy back and loses nothing.
        os.rename(submitted / "ann" / "ps1", submitted / "ann" / "ps1.replaced")
        (submitted / "ann" / "ps1.collecting").mkdir()
        with pytest.raises(ExchangeError, match="ann"):
            collect()
        assert (submitted / "ann" / "ps1" / "ps1.ipynb").read_bytes() == b"first of ann"
        monkeypatch.setattr(client_module.ExchangeClient, "submission_files", real)
        collect()
        assert (submitted / "ann" / "ps1" / "ps1.ipynb").read_bytes() == b"second of ann"
        assert sorted(p.name for p in (submitted / "ann").iterdir()) == ["ps1"]
    finally:
        running.stop()


def test_an_answer_cut_off_on_its_way_is_the_clients_own_error(tmp_path):
    """A reply that stops before its announced length (the exchange cuts off a reply that outlives
    exchange_upload_seconds; a proxy may drop one) is an ExchangeClientError naming it, which collect names per
    student, not an http.client exception that ends it."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))

    def answer_half():
        connection, _ = listener.accept()
        connection.recv(65536)
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                           b'{"files": [')
        connection.close()

    threading.Thread(target=answer_half, daemon=True).start()
    client = ExchangeClient(f"http://127.0.0.1:{listener.getsockname()[1]}", "tok-ann")
    with pytest.raises(ExchangeClientError, match="broke off before its answer was whole .IncompleteRead"):
        client.submission_files("perceptron", "ps1", "ann", "20260101T000000.000000Z")
    listener.close()
