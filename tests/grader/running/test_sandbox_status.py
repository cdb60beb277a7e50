"""Where bubblewrap cannot start, the grader says what is missing on this machine and the setting that fixes it.

The probes (the kernel's settings under ``/proc/sys``, whether ``unshare``
can make a user namespace, whether bwrap is setuid) are faked: each case is a
kind of machine courses grade on, and the message must name the one setting
or change that applies there, and not the others.
"""

import dataclasses
import os

from autograder.running import sandbox

# A Debian 12 or 13 kernel as installed: user namespaces allowed, the Debian-only switch present and on.
DEBIAN = sandbox.NamespaceFacts(bwrap="/usr/bin/bwrap", bwrap_setuid=False, root=False,
                                sysctls={"kernel.unprivileged_userns_clone": "1", "user.max_user_namespaces": "63379"},
                                user_namespaces=True)
SYSCTL_NAMES = ("kernel.unprivileged_userns_clone", "user.max_user_namespaces",
                "kernel.apparmor_restrict_unprivileged_userns")


def test_a_debian_kernel_with_unprivileged_user_namespaces_switched_off():
    facts = dataclasses.replace(DEBIAN, sysctls={**DEBIAN.sysctls, "kernel.unprivileged_userns_clone": "0"},
                                user_namespaces=False, user_namespace_error="unshare failed: Operation not permitted")
    text = sandbox.missing_for_sandbox(facts)
    assert "kernel.unprivileged_userns_clone is 0" in text
    assert "sysctl -w kernel.unprivileged_userns_clone=1" in text and "/etc/sysctl.d/" in text
    assert "max_user_namespaces" not in text and "apparmor" not in text.lower()


def test_a_kernel_without_the_debian_switch_that_allows_no_user_namespaces():
    # Most kernels have no kernel.unprivileged_userns_clone: the message must not ask for it.
    facts = dataclasses.replace(DEBIAN, sysctls={"user.max_user_namespaces": "0"}, user_namespaces=False,
                                user_namespace_error="unshare failed: No space left on device")
    text = sandbox.missing_for_sandbox(facts)
    assert "user.max_user_namespaces is 0" in text and "sysctl -w user.max_user_namespaces=" in text
    assert "unprivileged_userns_clone" not in text


def test_ubuntu_24_04_where_apparmor_restricts_user_namespaces():
    facts = dataclasses.replace(DEBIAN, sysctls={"user.max_user_namespaces": "63379",
                                                 "kernel.apparmor_restrict_unprivileged_userns": "1"},
                                user_namespaces=False,
                                user_namespace_error="unshare: write failed /proc/self/uid_map: Operation not permitted")
    text = sandbox.missing_for_sandbox(facts)
    assert "kernel.apparmor_restrict_unprivileged_userns is 1" in text
    assert "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" in text
    assert "profile bwrap /usr/bin/bwrap flags=(unconfined) { userns, }" in text and "apparmor_parser -r" in text
    assert "unprivileged_userns_clone" not in text and "max_user_namespaces" not in text


def test_a_container_whose_seccomp_filter_forbids_user_namespaces():
    facts = dataclasses.replace(DEBIAN, user_namespaces=False, user_namespace_error="unshare failed: Operation not permitted")
    text = sandbox.missing_for_sandbox(facts)
    assert "although the kernel's settings allow them" in text and "unshare failed: Operation not permitted" in text
    assert "seccomp" in text and "sysctl" not in text


def test_root_in_a_container_without_cap_sys_admin():
    facts = dataclasses.replace(DEBIAN, root=True, mount_namespaces=False,
                                mount_namespace_error="unshare failed: Operation not permitted")
    text = sandbox.missing_for_sandbox(facts)
    assert "CAP_SYS_ADMIN" in text and "--cap-add SYS_ADMIN" in text and "sysctl" not in text


def test_a_setuid_bwrap_is_not_held_back_by_the_unprivileged_switches():
    # A setuid bwrap makes its namespaces as root: only a limit that stops root too applies.
    facts = dataclasses.replace(DEBIAN, bwrap_setuid=True, sysctls={
        "kernel.unprivileged_userns_clone": "0", "kernel.apparmor_restrict_unprivileged_userns": "1",
        "user.max_user_namespaces": "63379"}, user_namespaces=False, user_namespace_error="unshare failed")
    text = sandbox.missing_for_sandbox(facts)
    assert "setuid" in text
    assert "unprivileged_userns_clone" not in text and "apparmor_restrict" not in text


def test_user_namespaces_that_work_point_to_bwraps_own_message():
    text = sandbox.missing_for_sandbox(DEBIAN)
    assert "user namespaces work here" in text and "bwrap's own message" in text and "sysctl" not in text


def test_without_unshare_the_check_says_it_could_not_look():
    text = sandbox.missing_for_sandbox(dataclasses.replace(DEBIAN, user_namespaces=None))
    assert "unshare" in text and "util-linux" in text


def test_the_status_names_what_is_missing_and_not_a_setting_this_kernel_lacks(monkeypatch):
    failed = sandbox.ProcessOutcome(returncode=1, timed_out=False, seconds=0.1,
                                    output="bwrap: setting up uid map: Permission denied\n")
    monkeypatch.setattr(sandbox, "run_sandboxed", lambda *args, **kwargs: failed)
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: f"/usr/bin/{name}")
    ubuntu = dataclasses.replace(DEBIAN, sysctls={"kernel.apparmor_restrict_unprivileged_userns": "1"},
                                 user_namespaces=False, user_namespace_error="unshare: write failed /proc/self/uid_map")
    monkeypatch.setattr(sandbox, "namespace_facts", lambda: ubuntu, raising=False)
    status = sandbox.sandbox_status.__wrapped__()
    assert not status.available
    assert status.description.startswith("bubblewrap is installed but cannot create a sandbox here "
                                         "(bwrap: setting up uid map: Permission denied): ")
    assert "kernel.apparmor_restrict_unprivileged_userns" in status.description
    assert "unprivileged_userns_clone" not in status.description


def test_the_probes_read_this_machine():
    facts = sandbox.namespace_facts()
    assert facts.root == (os.geteuid() == 0)
    assert facts.bwrap == sandbox.shutil.which("bwrap")
    for name in SYSCTL_NAMES:
        path = os.path.join("/proc/sys", *name.split("."))
        assert facts.sysctls.get(name) == (open(path).read().strip() if os.path.exists(path) else None)
    if sandbox.sandbox_status().available:
        assert facts.user_namespaces in (True, None), facts


def test_a_sysctl_is_read_from_its_file(tmp_path):
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / "max_user_namespaces").write_text("0\n")
    assert sandbox.read_sysctls(SYSCTL_NAMES, root=str(tmp_path)) == {"user.max_user_namespaces": "0"}

