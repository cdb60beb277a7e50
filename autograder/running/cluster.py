"""Grading on a Dask cluster: a ``concurrent.futures.Executor`` backed by ``dask.distributed``.

Each submission is graded independently, from its job description alone
(:func:`autograder.running.worker.run_submission` reads the submission and the
release from the paths the job names, and returns a picklable record), so
the batch maps onto any executor. This module is imported only when the
instructor passes ``--scheduler``; without it nothing about Dask is loaded.
The workers run the sandbox; the verdicts, the gradebook and every file of
the output stay with the host process that submitted the jobs.  When the
batch ends, every worker removes the folders that a worker killed during a
run left in its temporary folder
(:func:`autograder.running.worker.remove_abandoned_folders`).
"""

from contextlib import contextmanager


class ClusterUnavailable(RuntimeError):
    """The scheduler could not be reached, or Dask is not installed."""


@contextmanager
def dask_executor(address, *, timeout=None):
    """Yield an Executor that runs tasks on the Dask scheduler at ``address``.

    Parameters
    ----------
    address : str
        The scheduler's address, e.g. ``tcp://10.0.0.5:8786``, or the path of a
        scheduler file written by ``dask scheduler --scheduler-file``.
    timeout : float, optional
        Seconds to wait for the scheduler, and then for a worker, before giving
        up.  By default Dask's connect timeout, ``distributed.comm.timeouts.connect``
        in Dask's configuration: 30 s unless the instructor set another (for
        example with ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=10s``).
    """
    try:
        import dask
        from dask.utils import parse_timedelta
        from distributed import Client
    except ImportError as exc:
        raise ClusterUnavailable(
            "--scheduler needs the 'distributed' package (pip install 'dask[distributed]')."
        ) from exc
    if timeout is None:
        timeout = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="seconds")
    kwargs = {"scheduler_file": address} if address.endswith(".json") else {"address": address}
    try:
        client = Client(timeout=timeout, set_as_default=False, **kwargs)
    except (OSError, TimeoutError) as exc:
        raise ClusterUnavailable(f"Could not connect to the Dask scheduler at {address!r}: {exc}") from exc
    try:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except TimeoutError as exc:
            raise ClusterUnavailable(f"The Dask scheduler at {address!r} has no workers (waited {timeout:g} s).") from exc
        try:
            yield client.get_executor(pure=False)
        finally:
            _remove_abandoned_folders(client)
    finally:
        client.close()


def _remove_abandoned_folders(client):
    """Have every worker remove the job folders of workers that died; a worker that cannot is left alone."""
    from autograder.running.worker import remove_abandoned_folders

    try:
        client.run(remove_abandoned_folders, on_error="ignore")
    except Exception:  # a worker gone or a connection lost: the grades are already written
        pass
