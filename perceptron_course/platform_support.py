"""What the runner, the probe and the check need of the operating system, each chosen here once for this platform.

The student's check runs wherever students work (Windows, macOS, Linux, a
JupyterHub, Colab); grading runs the same runner and probe on Linux, inside
bubblewrap.  This is the one module of the student package that touches what
only some systems have (a test reads the syntax tree of every other module
to keep it so).  For each need it uses the POSIX or Linux facility where it
exists, which is what grading uses, and a portable one where it does not:

* **A timer that interrupts the main thread** (:func:`install_timer_handler`,
  :func:`set_timer`, :func:`restore_timer_handler`), for the per-cell and
  per-call time limits.  Where ``signal.SIGALRM`` and ``signal.setitimer``
  exist (Linux, macOS), exactly those: when the timer expires the handler
  runs in the main thread, between two bytecodes of whatever runs there.
  Elsewhere (Windows) a watchdog thread waits for the same moments and then
  asks the main thread to handle ``SIGINT`` (``_thread.interrupt_main``),
  with the same handler, so the same exception is raised at the same place,
  again after every interval while the code keeps catching it.  What the
  watchdog cannot do is wake a main thread that waits inside one call into C
  (``time.sleep``, a read): the handler then runs when that call returns.
* **The processes that are running** (:func:`running_processes`): ``/proc``
  on Linux; ``ps`` on other POSIX systems (macOS); a Toolhelp snapshot on
  Windows.
* **Ending a process and every process it started** (:class:`ProcessTree`):
  a new session, whose process group is killed (POSIX); a job object,
  terminated as a whole (Windows).

A limit this platform cannot enforce is said in one sentence
(:func:`unenforced_limits`), which the check prints once; the check still
runs.  It imports nothing but the standard library: the runner loads it
from its own folder, inside the sandbox too.
"""

import _thread
import os
import signal
import subprocess
import threading
import time

__all__ = ["TIMER_SIGNALS", "install_timer_handler", "set_timer", "restore_timer_handler", "running_processes",
           "ProcessTree", "unenforced_limits", "PROC"]

# Linux's process table; a system without it lists processes otherwise.
PROC = "/proc"
# Whether the timer is the operating system's own (SIGALRM from setitimer), as in grading.
TIMER_SIGNALS = all(hasattr(signal, name) for name in ("SIGALRM", "setitimer", "ITIMER_REAL"))
IS_WINDOWS = os.name == "nt"
POSIX_GROUPS = hasattr(os, "killpg") and hasattr(signal, "SIGKILL")

BLOCKING_CALLS_NOTE = ("a cell, or a call of one of your functions, that waits inside one long call (time.sleep, "
                       "reading a file or the network) is interrupted only when that call returns, not at its "
                       "time limit; grading interrupts it at the limit")
PROCESSES_NOTE = ("processes the notebook starts cannot all be ended here when its time is up; grading ends "
                  "every one of them")
# Sentences of what could not be enforced, found while running (said once each).
_found_unenforced = []


def unenforced_limits():
    """One sentence per limit this platform cannot enforce as grading does; empty where it can enforce them all."""
    notes = [] if TIMER_SIGNALS else [BLOCKING_CALLS_NOTE]
    if not (POSIX_GROUPS or IS_WINDOWS):
        notes.append(PROCESSES_NOTE)
    return tuple(dict.fromkeys(notes + _found_unenforced))


# -- the timer -------------------------------------------------------------------------------------------

class _Watchdog:
    """``setitimer``'s real-time timer, for a system without it: a thread interrupts the main thread when due.

    :meth:`set` behaves as ``setitimer(ITIMER_REAL, seconds, interval)``:
    after ``seconds`` (``0`` cancels) the main thread handles ``SIGINT``,
    then again after every ``interval`` (``0``: once).  The lock is
    reentrant because the handler, which runs in the main thread, may set
    the timer again while the main thread was itself setting it.
    """

    def __init__(self):
        self._changed = threading.Condition(threading.RLock())
        self._due = None
        self._interval = 0.0
        self._thread = None

    def set(self, seconds, interval=0.0):
        with self._changed:
            self._due = time.monotonic() + seconds if seconds > 0 else None
            self._interval = max(float(interval), 0.0)
            if self._thread is None:
                self._thread = threading.Thread(target=self._wait, name="time-limit-watchdog", daemon=True)
                self._thread.start()
            self._changed.notify()

    def _wait(self):
        # The lock is held from the moment the timer is found due until the main thread is asked, so a timer
        # cancelled before that moment never interrupts.
        with self._changed:
            while True:
                if self._due is None:
                    self._changed.wait()
                elif self._due > time.monotonic():
                    self._changed.wait(self._due - time.monotonic())
                else:
                    self._due = time.monotonic() + self._interval if self._interval > 0 else None
                    _thread.interrupt_main(signal.SIGINT)


_watchdog = _Watchdog()


def install_timer_handler(handler):
    """Make ``handler(signum, frame)`` what runs in the main thread when the timer expires; return the previous one.

    Call it from the main thread, before :func:`set_timer`; the handler may
    raise, and the exception is raised in the code the main thread was running.
    """
    return signal.signal(signal.SIGALRM if TIMER_SIGNALS else signal.SIGINT, handler)


def restore_timer_handler(previous):
    """Put back the handler :func:`install_timer_handler` returned."""
    signal.signal(signal.SIGALRM if TIMER_SIGNALS else signal.SIGINT, previous)


def set_timer(seconds, interval=0.0):
    """Expire after ``seconds``, then every ``interval`` seconds (``0``: once); ``seconds`` of ``0`` cancels."""
    if TIMER_SIGNALS:
        signal.setitimer(signal.ITIMER_REAL, seconds, interval)
    else:
        _watchdog.set(seconds, interval)


# -- the processes ---------------------------------------------------------------------------------------

def _proc_table():
    """``{pid: (parent pid, name)}`` from Linux's ``/proc``."""
    table = {}
    for entry in os.listdir(PROC):
        if not entry.isdigit():
            continue
        try:
            with open(f"{PROC}/{entry}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        name, _, rest = stat.partition(" (")[2].rpartition(")")
        try:
            table[int(entry)] = (int(rest.split()[1]), name)
        except (ValueError, IndexError):
            continue
    return table


def _ps_table():
    """``{pid: (parent pid, name)}`` from ``ps``, on a POSIX system without ``/proc`` (macOS); ``ps`` left out."""
    listing = subprocess.Popen(["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "comm="], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        out, _ = listing.communicate(timeout=30)
    finally:
        if listing.poll() is None:
            listing.kill()
            listing.wait()
    table = {}
    for line in out.decode("utf-8", "replace").splitlines():
        fields = line.split(None, 2)
        if len(fields) == 3 and fields[0].isdigit() and fields[1].isdigit() and int(fields[0]) != listing.pid:
            name = fields[2].strip()  # macOS gives the program's path: keep its name, as /proc does
            table[int(fields[0])] = (int(fields[1]), os.path.basename(name) if name.startswith("/") else name)
    return table


def _windows_table():
    """``{pid: (parent pid, name)}`` from a Toolhelp snapshot of the processes (Windows)."""
    import ctypes
    from ctypes import wintypes

    class ProcessEntry(ctypes.Structure):
        _fields_ = [("dwSize", wintypes.DWORD), ("cntUsage", wintypes.DWORD), ("th32ProcessID", wintypes.DWORD),
                    ("th32DefaultHeapID", ctypes.c_size_t), ("th32ModuleID", wintypes.DWORD),
                    ("cntThreads", wintypes.DWORD), ("th32ParentProcessID", wintypes.DWORD),
                    ("pcPriClassBase", wintypes.LONG), ("dwFlags", wintypes.DWORD),
                    ("szExeFile", wintypes.WCHAR * 260)]

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.CreateToolhelp32Snapshot.restype = wintypes.HANDLE
    kernel32.CreateToolhelp32Snapshot.argtypes = (wintypes.DWORD, wintypes.DWORD)
    kernel32.Process32FirstW.argtypes = kernel32.Process32NextW.argtypes = (wintypes.HANDLE,
                                                                            ctypes.POINTER(ProcessEntry))
    kernel32.CloseHandle.argtypes = (wintypes.HANDLE,)
    snapshot_processes = 0x2  # TH32CS_SNAPPROCESS
    snapshot = kernel32.CreateToolhelp32Snapshot(snapshot_processes, 0)
    if snapshot is None or snapshot == wintypes.HANDLE(-1).value:
        return {}
    table = {}
    try:
        entry = ProcessEntry()
        entry.dwSize = ctypes.sizeof(ProcessEntry)
        found = kernel32.Process32FirstW(snapshot, ctypes.byref(entry))
        while found:
            table[int(entry.th32ProcessID)] = (int(entry.th32ParentProcessID), entry.szExeFile)
            found = kernel32.Process32NextW(snapshot, ctypes.byref(entry))
    finally:
        kernel32.CloseHandle(snapshot)
    return table


def _process_table():
    """``{pid: (parent pid, name)}`` of the processes this one can see, or ``{}`` when they cannot be listed."""
    try:
        if os.path.isdir(PROC):
            return _proc_table()
        if IS_WINDOWS:
            return _windows_table()
        return _ps_table()
    except (OSError, ValueError, subprocess.SubprocessError):
        return {}


def running_processes(exclude):
    """Names of the processes visible here, except the ids in ``exclude`` and this process's parents.

    Meaningful in a pid namespace of the run's own (the sandbox), where every
    process listed was started by the notebook.
    """
    table = _process_table()
    skip, pid = set(exclude), os.getpid()
    for _ in range(64):  # this process's parents: the sandbox's own init and launcher processes
        pid = table.get(pid, (0, ""))[0]
        if pid <= 0:
            break
        skip.add(pid)
    return [name.strip()[:40] for pid, (_, name) in sorted(table.items()) if pid not in skip]


class _Job:
    """A Windows job object: every process started by a process in it is in it too, and all end together."""

    def __init__(self):
        import ctypes
        from ctypes import wintypes

        self._kernel32 = kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.CreateJobObjectW.restype = wintypes.HANDLE
        kernel32.CreateJobObjectW.argtypes = (ctypes.c_void_p, wintypes.LPCWSTR)
        kernel32.AssignProcessToJobObject.restype = wintypes.BOOL
        kernel32.AssignProcessToJobObject.argtypes = (wintypes.HANDLE, wintypes.HANDLE)
        kernel32.TerminateJobObject.restype = wintypes.BOOL
        kernel32.TerminateJobObject.argtypes = (wintypes.HANDLE, wintypes.UINT)
        kernel32.CloseHandle.argtypes = (wintypes.HANDLE,)
        self._handle = kernel32.CreateJobObjectW(None, None)
        if not self._handle:
            raise OSError(ctypes.get_last_error(), "CreateJobObject failed")

    def add(self, process):
        if not self._kernel32.AssignProcessToJobObject(self._handle, int(process._handle)):
            raise OSError("AssignProcessToJobObject failed")

    def end(self):
        if self._handle:
            self._kernel32.TerminateJobObject(self._handle, 1)
            self._kernel32.CloseHandle(self._handle)
            self._handle = None


class ProcessTree:
    """A process started so that, when :meth:`end` is called, it and every process it started end together.

    POSIX: the process leads a new session and process group, which
    :meth:`end` kills (a process that leaves the group by starting a session
    of its own escapes).  Windows: the process runs in a job object and
    without the console's Ctrl+C, and :meth:`end` terminates the job.  Where
    neither is possible only the process itself is ended, and
    :func:`unenforced_limits` says so.  ``gently`` first asks the process to
    stop as Ctrl+C would (POSIX), so that it can end what it started itself.
    """

    def __init__(self, command, *, cwd=None, env=None, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
        options = {}
        if POSIX_GROUPS:
            options["start_new_session"] = True
        elif IS_WINDOWS:
            options["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        self.process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=stdout,
                                        stderr=stderr, **options)
        self._job = None
        if IS_WINDOWS:
            try:
                self._job = _Job()
                self._job.add(self.process)
            except (OSError, AttributeError, ValueError):  # no job objects here, or the process may not join one
                if self._job is not None:
                    self._job.end()  # it holds no process yet: this only closes it
                self._job = None
                _found_unenforced.append(PROCESSES_NOTE)

    def communicate(self, timeout=None):
        """``(stdout, stderr)`` once the process ended; ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
        return self.process.communicate(timeout=timeout)

    def end(self, gently=0.0):
        """End the process and everything it started; ``gently``: seconds to let it stop on a Ctrl+C first."""
        if gently and POSIX_GROUPS and self.process.poll() is None:
            self._signal_group(signal.SIGINT)
            try:
                self.process.wait(timeout=gently)
            except subprocess.TimeoutExpired:
                pass
        if POSIX_GROUPS:
            self._signal_group(signal.SIGKILL)
        elif self._job is not None:
            self._job.end()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def _signal_group(self, signum):
        try:
            os.killpg(self.process.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass
