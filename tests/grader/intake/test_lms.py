"""Recognising each LMS's download layout (:mod:`autograder.intake.lms`), with fixtures built from each one's naming rules.

Canvas: ``lastnamefirstname_[LATE_]<userid>_<submissionid>_<file>`` with ``-N``
resubmission suffixes.  Moodle: ``Full Name_<participantid>_assignsubmission_file_/``
folders and the flat ``..._assignsubmission_file_<file>`` form.  Blackboard:
``<Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<file>`` and the
attempt's ``.txt`` receipt.  Gradescope: ``submission_<id>/`` folders and
``submission_metadata.yml``.  Plain: ``<id>.ipynb`` and ``<id>/``.
"""

import datetime
import os

import pytest

from autograder.boundary.lms_files import read_blackboard_receipt, read_gradescope_metadata
from autograder.intake.lms import choose_notebook, notebook_stem, safe_id, scan
from tests.support.lms_layouts import GRADESCOPE_METADATA, blackboard_attempt, issue_example, write

A = "ps1_hyperplanes"
NB = f"{A}.ipynb"


def by_source(entries):
    return {e.source: e for e in entries}


def by_name(unused):
    return {u.name: u for u in unused}


# -- ids ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("alice", "alice"),                                   # already safe: unchanged
    ("a.smith@uni.edu", "a.smith@uni.edu"),
    ("Barbara Liskov", "barbara-liskov"),
    ("Barbara Liskov (2)", "barbara-liskov-2"),
    ("hopper grace", "hopper-grace"),
    ("Émilie du Châtelet", "emilie-du-chatelet"),
    ("Zoë Ångström", "zoe-angstrom"),
    ("Łukasz Wąsowski", "lukasz-wasowski"),
    ("O'Brien, Seán", "o-brien-sean"),
    ("..hidden", "hidden"),
    ("a..b", "a-b"),
])
def test_safe_id_of_names(name, expected):
    assert safe_id(name) == expected


def test_safe_id_is_deterministic_and_safe_for_any_name():
    for name in ["李雷", "Мария Иванова", "", "   ", "!!!", "x" * 300, "../../etc/passwd", "a/b\\c", "nul\x00byte"]:
        made = safe_id(name)
        assert made == safe_id(name)
        assert safe_id(made) == made, "a made id is itself safe"
        assert 0 < len(made) <= 100
        assert "/" not in made and ".." not in made and "\\" not in made
    assert safe_id("李雷") != safe_id("王芳"), "names without Latin letters still get distinct ids"
    assert safe_id("李雷").startswith("student-")


def test_notebook_stem_strips_resubmission_and_copy_markers():
    assert notebook_stem("ps1_hyperplanes.ipynb") == ("ps1_hyperplanes", 0)
    assert notebook_stem("ps1_hyperplanes-2.ipynb") == ("ps1_hyperplanes", 2)
    assert notebook_stem("ps1_hyperplanes (3).ipynb") == ("ps1_hyperplanes", 3)
    assert notebook_stem("ps1-hyperplanes.ipynb") == ("ps1-hyperplanes", 0), "only a number after the dash"


def test_choose_notebook():
    assert choose_notebook([NB, "helper.py"], A) == (NB, None, [])
    assert choose_notebook(["PS1_Hyperplanes.ipynb"], A)[0] == "PS1_Hyperplanes.ipynb"
    assert choose_notebook([f"{A}-1.ipynb", NB, f"{A}-2.ipynb"], A) == (f"{A}-2.ipynb", None, [NB, f"{A}-1.ipynb"])
    assert choose_notebook(["mine.ipynb"], A)[0] == "mine.ipynb"
    chosen, problem, _ = choose_notebook(["a.ipynb", "b.ipynb"], A)
    assert chosen is None and "2 notebooks" in problem and "a.ipynb" in problem
    chosen, problem, _ = choose_notebook(["report.pdf"], A)
    assert chosen is None and "no notebook" in problem


# -- Canvas --------------------------------------------------------------------------------

def test_canvas_flat_files_late_marker_and_resubmissions(tmp_path):
    write(tmp_path, f"lovelaceada_104233_5512301_{NB}", b"{}")
    write(tmp_path, "lovelaceada_104233_5512301_helper.py", b"x = 1")
    write(tmp_path, f"hopper grace_LATE_104871_5512377_{NB}", b"{}")
    write(tmp_path, f"hopper grace_LATE_104871_5512377_{A}-1.ipynb", b"{}")
    write(tmp_path, "müllerjörg_104999_5512400_numpy.py", b"")
    write(tmp_path, f"müllerjörg_104999_5512400_{A}.ipynb", b"{}")
    entries, unused = scan(str(tmp_path), A)
    assert len(entries) == 3
    ada = by_source(entries)[f"lovelaceada_104233_5512301_{NB}"]
    assert (ada.lms, ada.identity, ada.suggested_id, ada.name) == ("canvas", "canvas:104233", "lovelaceada", "lovelaceada")
    assert ada.extra_files == ("helper.py",) and not ada.marked_late
    grace = by_source(entries)[f"hopper grace_LATE_104871_5512377_{A}-1.ipynb"]
    assert grace.marked_late and grace.suggested_id == "hopper-grace"
    assert grace.notebook.endswith(f"{A}-1.ipynb"), "the resubmission (-1) is the later upload"
    earlier = by_name(unused)[f"hopper grace_LATE_104871_5512377_{NB}"]
    assert earlier.kind == "superseded" and "-1.ipynb" in earlier.reason
    jorg = by_source(entries)[f"müllerjörg_104999_5512400_{A}.ipynb"]
    assert jorg.suggested_id == "mullerjorg" and jorg.extra_files == ("numpy.py",)


def test_canvas_student_without_notebook_gets_an_entry_with_the_reason(tmp_path):
    write(tmp_path, "turingalan_104300_5512999_essay.pdf", b"%PDF")
    entries, _ = scan(str(tmp_path), A)
    (entry,) = entries
    assert entry.notebook is None and "no notebook" in entry.problem and entry.identity == "canvas:104300"


# -- Moodle --------------------------------------------------------------------------------

def test_moodle_folders_and_flat_files(tmp_path):
    write(tmp_path, f"Alan Turing_88123_assignsubmission_file_/{NB}", b"{}")
    write(tmp_path, "Alan Turing_88123_assignsubmission_file_/numpy.py", b"")
    write(tmp_path, "Alan Turing_88123_assignsubmission_file_/data/extra.csv", b"")
    write(tmp_path, "Zoë Ångström (née Berg)_88124_assignsubmission_file_/PS1_Hyperplanes.ipynb", b"{}")
    write(tmp_path, "Alan Turing_88123_assignsubmission_onlinetext_/onlinetext.html", b"<p>hi</p>")
    write(tmp_path, f"Grace Hopper_88125_assignsubmission_file_{NB}", b"{}")
    write(tmp_path, "Grace Hopper_88125_assignsubmission_onlinetext_onlinetext.html", b"<p></p>")
    write(tmp_path, f"Participant_90001_assignsubmission_file_/{NB}", b"{}")   # blind marking
    entries, unused = scan(str(tmp_path), A)
    found = {e.identity: e for e in entries}
    assert set(found) == {"moodle:88123", "moodle:88124", "moodle:88125", "moodle:90001"}
    alan = found["moodle:88123"]
    assert alan.name == "Alan Turing" and alan.suggested_id == "alan-turing"
    assert alan.extra_files == ("data/extra.csv", "numpy.py")
    zoe = found["moodle:88124"]
    assert zoe.name == "Zoë Ångström (née Berg)" and zoe.suggested_id == "zoe-angstrom-nee-berg"
    assert zoe.notebook.endswith("PS1_Hyperplanes.ipynb")
    assert found["moodle:88125"].source == f"Grace Hopper_88125_assignsubmission_file_{NB}"
    assert found["moodle:90001"].name == "Participant"
    texts = [u for u in unused if "onlinetext" in u.name]
    assert len(texts) == 2 and all("only uploaded files are graded" in u.reason for u in texts)


# -- Blackboard ----------------------------------------------------------------------------

def test_blackboard_attempts_and_receipts(tmp_path):
    blackboard_attempt(tmp_path, "PS1 Hyperplanes", "alovelace", "Ada Lovelace", "2025-01-29-10-00-00",
                       [(NB, None), ("notes.txt", b"scratch")])
    blackboard_attempt(tmp_path, "PS1 Hyperplanes", "alovelace", "Ada Lovelace", "2025-01-30-09-30-00", [(NB, None)])
    blackboard_attempt(tmp_path, "PS1 Hyperplanes", "j_smith", "John Smith", "2025-01-30-12-00-00", [(NB, None)])
    entries, unused = scan(str(tmp_path), A)
    assert len(entries) == 3, "one entry per attempt; resolve() picks the latest"
    ada = sorted((e for e in entries if e.identity == "blackboard:alovelace"), key=lambda e: e.submitted_at)
    assert [e.submitted_at for e in ada] == [datetime.datetime(2025, 1, 29, 10), datetime.datetime(2025, 1, 30, 9, 30)]
    assert ada[0].name == "Ada Lovelace" and ada[0].extra_files == ("notes.txt",)
    assert ada[0].receipt == "PS1 Hyperplanes_alovelace_attempt_2025-01-29-10-00-00.txt"
    smith = next(e for e in entries if e.name == "John Smith")
    assert smith.identity == "blackboard:j_smith", "the receipt's username settles an underscore in it"
    receipts = [u for u in unused if u.name.endswith(".txt")]
    assert len(receipts) == 3 and all(u.kind == "read" for u in receipts)
    assert not any(e.source.endswith(".txt") for e in entries), "a receipt is never a student"


def test_blackboard_receipt_gives_the_original_file_names(tmp_path):
    blackboard_attempt(tmp_path, "PS1", "gh", "Grace Hopper", "2025-01-30-09-30-00", [(NB, None)])
    info = read_blackboard_receipt(os.path.join(tmp_path, "PS1_gh_attempt_2025-01-30-09-30-00.txt"))
    assert info.name == "Grace Hopper" and info.username == "gh"
    assert info.files == ((f"PS1_gh_attempt_2025-01-30-09-30-00_{NB}", NB),)
    assert info.submitted == "30/01/2025 09:30:00"


def test_blackboard_attempt_without_receipt_still_counts(tmp_path):
    write(tmp_path, f"PS1_kj_attempt_2025-01-30-09-30-00_{NB}", b"{}")
    (entry,), unused = scan(str(tmp_path), A)
    assert entry.identity == "blackboard:kj" and entry.name == "" and unused == []


# -- Gradescope -----------------------------------------------------------------------------

def test_gradescope_export(tmp_path):
    write(tmp_path, "submission_metadata.yml", GRADESCOPE_METADATA)
    write(tmp_path, f"submission_2287731/{NB}", b"{}")
    write(tmp_path, f"submission_2287790/{NB}", b"{}")
    write(tmp_path, "submission_2287790/utils.py", b"")
    write(tmp_path, f"submission_3000000/{NB}", b"{}")                    # not in the metadata
    entries, unused = scan(str(tmp_path), A)
    found = by_source(entries)
    dorothy = found["submission_2287731"]
    assert (dorothy.identity, dorothy.suggested_id, dorothy.name, dorothy.email) == (
        "gradescope:dv0042", "dv0042", "Dorothy Vaughan", "dvaughan@example.edu")
    assert dorothy.submitted_at == datetime.datetime(2025, 1, 31, 23, 40, 12, 518113, tzinfo=datetime.timezone.utc)
    group = found["submission_2287790"]
    assert group.suggested_id == "mj0077" and group.co_submitters == (("Annie Easley", "ae0013", "aeasley@example.edu"),)
    assert group.extra_files == ("utils.py",)
    assert found["submission_3000000"].suggested_id == "submission_3000000"
    assert by_name(unused)["submission_metadata.yml"].kind == "read"
    assert "submission_metadata.yml" not in found


@pytest.mark.parametrize("text", ["{{{ not yaml", "- just\n- a list\n", "", "a: !!python/object:os.system x\n"])
def test_gradescope_bad_metadata_is_reported_never_graded(tmp_path, text):
    write(tmp_path, "submission_metadata.yml", text)
    write(tmp_path, f"submission_11/{NB}", b"{}")
    entries, unused = scan(str(tmp_path), A)
    assert [e.source for e in entries] == ["submission_11"]
    assert "submission_metadata.yml" in by_name(unused)


# -- plain -------------------------------------------------------------------------------

def test_plain_files_and_folders(tmp_path):
    write(tmp_path, "alice.ipynb", b"{}")
    write(tmp_path, f"bob/{NB}", b"{}")
    write(tmp_path, "bob/helper.py", b"")
    write(tmp_path, f"Barbara Liskov (2)/{NB}", b"{}")
    write(tmp_path, "carol.py", b"")
    write(tmp_path, "empty_folder/.keep", b"")
    write(tmp_path, ".hidden.ipynb", b"{}")
    entries, unused = scan(str(tmp_path), A)
    found = by_source(entries)
    assert found["alice.ipynb"].identity == "plain:alice" and found["alice.ipynb"].notebook
    assert found["bob"].extra_files == ("helper.py",)
    liskov = found["Barbara Liskov (2)"]
    assert liskov.suggested_id == "barbara-liskov" and liskov.order[0] == 2
    assert found["carol.py"].notebook is None and "not a notebook" in found["carol.py"].problem
    assert found["empty_folder"].notebook is None and "no notebook" in found["empty_folder"].problem
    assert by_name(unused)[".hidden.ipynb"].reason.startswith("a hidden file")


def test_extraction_problems_are_reported_on_the_entry(tmp_path):
    path = write(tmp_path, "alice.ipynb", b"{}")
    (entry,), _ = scan(str(tmp_path), A, extraction_problems={path: "it could not be extracted (bad CRC)"})
    assert entry.notebook is None and entry.problem == "it could not be extracted (bad CRC)"


# -- the table of layouts ---------------------------------------------------------------------

def test_every_layout_belongs_to_a_named_lms_and_the_first_that_matches_wins():
    from autograder.intake.lms import LAYOUTS, LMS_NAMES, PLAIN_LAYOUTS, layout_of

    assert {layout.lms for layout in LAYOUTS + PLAIN_LAYOUTS} <= set(LMS_NAMES)
    # Each of these names matches Canvas's pattern too, which comes later.
    assert layout_of(f"PS1_ada_attempt_2025-01-01-00-00-00_x_1_2_{NB}", False)[0].lms == "blackboard"
    assert layout_of(f"Ada King_7_assignsubmission_file_x_1_2_{NB}", False)[0].lms == "moodle"
    assert layout_of(f"x_1_2_{NB}", False)[0].lms == "canvas"
    assert layout_of("submission_7", True)[0].lms == "gradescope" and layout_of("submission_7", False)[0].lms == "plain"
    assert layout_of("any\nname", True)[0].lms == "plain"


# -- the issue's mixed download -------------------------------------------------------------

def test_mixed_download_gives_every_student_one_entry(tmp_path):
    expected = issue_example(str(tmp_path))
    entries, unused = scan(str(tmp_path), A)
    assert sorted(e.suggested_id for e in entries) == sorted(expected.values())
    assert all(e.notebook and not e.problem for e in entries)
    assert {u.name for u in unused} == {"submission_metadata.yml",
                                        "PS1 Hyperplanes_kjohnson_attempt_2025-01-30-22-15-07.txt"}
    assert all(u.kind == "read" for u in unused)


# -- generated downloads: nothing is lost, every id is safe and unique -----------------------

PEOPLE = ["Ada Lovelace", "Zoë Ångström", "Barbara Liskov (2)", "O'Brien Seán", "李雷", "x", "Jean-Luc Picard",
          "Anne_Marie", "..", "ALL CAPS", "tab\there", "émilie", "Emilie"]


def random_download(rng, folder):
    """A download mixing every layout, with names drawn to collide, accent and break patterns."""
    def person():
        return rng.choice(PEOPLE)

    def file_name():
        return rng.choice([NB, f"{A}-{rng.randint(1, 3)}.ipynb", "helper.py", "numpy.py", "notes.txt",
                           "Other Name.ipynb", f"{A} (1).ipynb"])

    for _ in range(rng.randint(1, 12)):
        kind = rng.randrange(9)
        uid, sub = rng.randint(1, 5), rng.randint(100, 105)
        if kind == 0:
            name = person().replace("_", " ").replace("/", " ").lower().replace(" ", rng.choice(["", " "]))
            write(folder, f"{name or 'x'}_{'LATE_' if rng.random() < .3 else ''}{uid}_{sub}_{file_name()}", b"{}")
        elif kind == 1:
            write(folder, f"{person().replace('_', ' ')}_{uid}_assignsubmission_file_/{file_name()}", b"{}")
        elif kind == 2:
            write(folder, f"{person().replace('_', ' ')}_{uid}_assignsubmission_file_{file_name()}", b"{}")
        elif kind == 3:
            stamp = f"2025-01-{rng.randint(10, 31):02d}-{rng.randint(0, 23):02d}-00-00"
            user = rng.choice(["ada", "j_smith", "bob"])
            if rng.random() < .7:
                blackboard_attempt(folder, rng.choice(["PS1", "PS 1 (hyperplanes)"]), user, person(), stamp,
                                   [(file_name(), None)])
            else:
                write(folder, f"PS1_{user}_attempt_{stamp}_{file_name()}", b"{}")
        elif kind == 4:
            write(folder, f"submission_{uid}/{file_name()}", b"{}")
            if rng.random() < .5:
                write(folder, "submission_metadata.yml", f"submission_{uid}:\n  :submitters:\n  - :name: {person()!r}\n"
                                                         f"    :sid: '{rng.choice(['', 's1', 's2'])}'\n")
        elif kind == 5:
            write(folder, f"{person()}.ipynb", b"{}")
        elif kind == 6:
            write(folder, f"{person()}/{file_name()}", b"{}")
        elif kind == 7:
            write(folder, rng.choice(["README.txt", ".DS_Store", ".hidden", "grades.xlsx", "__MACOSX/x"]), b"")
        else:
            write(folder, f"{person()}/sub/dir/{file_name()}", b"{}")


def test_generated_downloads_lose_nothing_and_give_safe_unique_ids(tmp_path):
    import random

    from autograder.intake.lms import IGNORED, is_safe_student_id
    from autograder.intake.roster import resolve

    rng = random.Random(20250131)
    for case in range(300):
        folder = tmp_path / f"case{case}"
        folder.mkdir()
        random_download(rng, str(folder))
        entries, unused = scan(str(folder), A)
        accounted = {m for e in entries for m in e.members} | {u.name for u in unused}
        for name in os.listdir(folder):
            assert name in IGNORED or name in accounted, (case, name, sorted(os.listdir(folder)))
        for e in entries:
            assert (e.notebook is None) != (e.problem is None), (case, e)
        result = resolve(entries)
        ids = [r.student_id for r in result.graded]
        assert len(ids) == len(set(ids)) and all(is_safe_student_id(i) for i in ids), (case, ids)
        assert len(result.graded) + len(result.superseded) == len(entries)
        shuffled = entries[:]
        rng.shuffle(shuffled)
        assert [(r.student_id, r.entry.source) for r in resolve(shuffled).graded] == \
            [(r.student_id, r.entry.source) for r in result.graded], "the outcome does not depend on order"


def test_zip_of_one_moodle_folder_is_that_participants_submission(tmp_path):
    import zipfile

    from autograder.intake.submissions import collect

    archive = tmp_path / "one.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"Alan Turing_88123_assignsubmission_file_/{NB}", '{"cells": []}')
        zf.writestr("Alan Turing_88123_assignsubmission_file_/scratch.ipynb", '{"cells": []}')
    work = tmp_path / "work"
    work.mkdir()
    submissions, skipped = collect(str(archive), A, str(work))
    assert [(s.student_id, s.source) for s in submissions] == [("alan-turing", "Alan Turing_88123_assignsubmission_file_")]
    assert dict(submissions[0].flags)["extra-files"] == "scratch.ipynb"


def test_extraction_problems_reach_flat_layouts_too(tmp_path):
    path = write(tmp_path, f"lovelaceada_104233_5512301_{NB}", b"{}")
    (entry,), _ = scan(str(tmp_path), A, extraction_problems={path: "it could not be extracted (encrypted)"})
    assert entry.notebook is None and entry.problem == "it could not be extracted (encrypted)"


# -- receipts and metadata are untrusted: any bytes give a record or a reason, never an exception -----

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# 300 examples under hypothesis's default profile (100); in proportion under another (make test-fast's).
MANY = settings(max_examples=settings.default.max_examples * 3, deadline=None)

RECEIPT_LINES = st.sampled_from(["Name: Ada Lovelace (alovelace)", "Name: (", "Name: ((x))", "Original filename: a",
                                 "Filename: b", "Date Submitted: ", ":::", "Files:", "\tFilename: c"])
YAML_PIECES = st.sampled_from(["submission_1:", "  :submitters:", "  - :name: x", "    :sid: 1", "  :created_at: 2025",
                               "  :created_at: 2025-01-01 00:00:00 +0100", "&a [*a]", "!ruby/object:Foo {}", "- -",
                               "? [a]\n: b", "{", "'", ":x: !!binary AAAA", "submission_1: [1, 2]"])


@MANY
@given(st.one_of(st.binary(max_size=2000), st.lists(RECEIPT_LINES, max_size=12).map(lambda ls: "\n".join(ls).encode())))
def test_any_receipt_bytes_give_a_record_or_none(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("r") / "receipt.txt"
    path.write_bytes(data)
    info = read_blackboard_receipt(str(path))
    assert info is None or (isinstance(info.name, str) and all(isinstance(k, str) and isinstance(v, str)
                                                               for k, v in info.files))


@MANY
@given(st.one_of(st.binary(max_size=2000), st.lists(YAML_PIECES, max_size=12).map(lambda ls: "\n".join(ls).encode())))
def test_any_metadata_bytes_give_records_or_a_reason(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("m") / "submission_metadata.yml"
    path.write_bytes(data)
    found, problem = read_gradescope_metadata(str(path))
    assert isinstance(found, dict) and (problem is None or isinstance(problem, str))
    for record in found.values():
        assert all(isinstance(part, str) for person in record.submitters for part in person)
        assert record.created_at is None or isinstance(record.created_at, datetime.datetime)


def test_metadata_alias_bomb_is_not_expanded(tmp_path):
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    text = "\n".join(levels) + "\nsubmission_1:\n  :submitters:\n  - :name: *a9\n    :sid: s1\n"
    path = write(tmp_path, "submission_metadata.yml", text)
    found, problem = read_gradescope_metadata(path)
    assert problem is None and found["submission_1"].submitters == (("", "s1", ""),)


def test_canvas_name_with_an_underscore_is_still_canvas(tmp_path):
    write(tmp_path, f"o_brien_LATE_104_55_{A}_v2.ipynb", b"{}")
    (entry,), _ = scan(str(tmp_path), A)
    assert (entry.lms, entry.identity, entry.name, entry.marked_late) == ("canvas", "canvas:104", "o_brien", True)
    assert entry.notebook.endswith(f"{A}_v2.ipynb")
