"""Which nbgitpuller links a server of the hub follows (:mod:`perceptron_course.hub.git_links`); the real
hub refusing one in a student's browser is tested in ``test_nbgitpuller.py``."""

import pytest

from perceptron_course.hub.git_links import allowed_repositories, pull_problem

COURSE = "https://github.com/perceptron-course/perceptron-course-public"


@pytest.mark.parametrize("repo,targetpath", [
    (COURSE, None),
    (COURSE + ".git", None),
    (COURSE + "/", "perceptron-course-public"),
    ("http://127.0.0.1:8123/public.git", "course material"),
])
def test_the_books_links_are_followed(repo, targetpath):
    assert pull_problem(repo, targetpath) is None


@pytest.mark.parametrize("targetpath", [
    ".ipython/profile_default", ".ipython", ".config/git", ".bashrc", "..", ".", "a/b", "a\\b", "../elsewhere",
    "/home/other", "name\u202e", "line\nbreak",
])
def test_a_folder_that_is_hidden_nested_or_outside_the_home_is_refused(targetpath):
    problem = pull_problem(COURSE, targetpath)
    assert problem and "plain, visible folder" in problem


@pytest.mark.parametrize("repo", [
    "/tmp/a-course.bundle", "file:///tmp/x.git", "ssh://host/x.git", "git@github.com:a/b.git", "ext::sh -c id",
    "https://", "https://host/x y.git", "", "ftp://host/x.git",
])
def test_a_repository_that_is_no_web_address_is_refused(repo):
    assert pull_problem(repo, "folder") is not None


def test_a_repository_named_by_default_after_a_hidden_folder_is_refused():
    # Without targetpath nbgitpuller clones into the repository's last name.
    assert "plain, visible folder" in pull_problem("https://example.org/.ipython", None)


def test_where_the_hub_names_the_courses_repositories_no_other_is_followed():
    allowed = allowed_repositories({"COURSE_GIT_REPOSITORIES": f"{COURSE}.git  https://example.org/b/"})
    assert allowed == {COURSE, "https://example.org/b"}
    assert pull_problem(COURSE, None, allowed) is None
    assert pull_problem(COURSE + ".git/", None, allowed) is None
    problem = pull_problem("https://github.com/a-student/perceptron-course-public", None, allowed)
    assert problem and "not one of the course's" in problem
    # The folder rule still holds for the course's own repository.
    assert pull_problem(COURSE, ".ipython/profile_default", allowed) is not None
    assert allowed_repositories({}) == set()
