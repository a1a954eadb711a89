"""The Dask cluster behind the estimators: a local cluster started once, or a scheduler
reached by its address (every error names the ``scheduler`` parameter), and the
``scheduler`` parameter that survives clone and pickle."""
import asyncio
import atexit
import copy
import logging
import os
import sys
import threading

#: Seconds to wait for a scheduler given by its address before giving up.
_CONNECT_TIMEOUT = 5

_LOCAL_CLIENTS = []  # the Client of this module's own LocalCluster, once started
_ADDRESS_CLIENTS = {}  # a scheduler's address -> the Client connected to it


def _close_local_clusters():
    """Close this module's clusters quietly (at exit: their shutdown logs are noise)."""
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    for client in _LOCAL_CLIENTS:
        client.cluster.close()
        client.close()
    _LOCAL_CLIENTS.clear()


def n_cores():
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError("lsl_lib.distributed runs on Dask: python -m pip install "
                          "'dask[distributed]' (requirements.txt has it).") from None
    return distributed


def _connection_args(address):
    """The connection arguments of ``address`` (TLS credentials from Dask's configuration),
    after checking that it is an address; errors name the ``scheduler`` parameter."""
    from distributed.comm import parse_address, parse_host_port
    from distributed.comm.registry import get_backend
    from distributed.security import Security

    try:
        scheme, location = parse_address(address)
        get_backend(scheme)
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except ValueError as exc:
        raise ValueError(
            f"scheduler={address!r} is not a scheduler address ({exc}); expected "
            "'tcp://host:port' (the scheduler's port, 8786 by default), a distributed.Client, "
            "or None.") from None
    args = Security().get_connection_args("client")
    if scheme == "tls" and args.get("ssl_context") is None:
        raise ValueError(
            f"scheduler={address!r} is a TLS address and Dask's configuration holds no TLS "
            "credentials (distributed.comm.tls.*): connect yourself, client = Client(address, "
            "security=distributed.security.Security(tls_ca_file=..., tls_client_cert=..., "
            "tls_client_key=...)), and pass scheduler=client.")
    return args


def _identify(address, timeout, connection_args):
    """What answers at ``address``: Dask's ``identity`` of the server there.

    The whole exchange (connection, Dask's handshake, the reply) runs on an event loop of its
    own in a helper thread and is bounded by ``timeout`` seconds: ``distributed.Client``'s own
    ``timeout`` bounds only the connection, and a service that accepts it but does not speak
    Dask's protocol (an HTTP server, the dashboard) would leave the handshake waiting forever,
    or, if it sends a banner, have its first bytes read as an exabyte frame length.
    """
    from distributed.comm import connect

    async def identify():
        # connect's own timeout ends first when nothing accepts the connection: its error
        # says why (refused, unreachable); the outer one ends a handshake left waiting
        comm = await connect(address, timeout=0.9 * timeout, **connection_args)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    outcome = []

    def run():
        try:
            outcome.append(asyncio.run(asyncio.wait_for(identify(), timeout)))
        except BaseException as exc:  # returned to the caller's thread, raised there
            outcome.append(exc)

    thread = threading.Thread(target=run, name="lsl-scheduler-probe", daemon=True)
    thread.start()
    thread.join(timeout + 1)
    if not outcome:
        raise TimeoutError(f"no answer within {timeout} s")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _connect(address, timeout):
    """A Client connected to the Dask scheduler at ``address``, or a ConnectionError within
    ``timeout`` seconds (plus the Client's own start, bounded by the same timeout)."""
    from distributed import Client

    connection_args = _connection_args(address)
    advice = ("Check the address (the scheduler's port, 8786 by default, not the dashboard's, "
              "8787), start a scheduler there (`dask scheduler`, then `dask worker <address>` "
              "on each machine), or pass scheduler=None for a local cluster on this machine.")
    try:
        info = _identify(address, timeout, connection_args)
    except TimeoutError:  # connected, and the handshake waited (an HTTP server, say)
        raise ConnectionError(
            f"scheduler={address!r}: no Dask scheduler answered within {timeout} s (a service "
            f"accepted the connection but sent no reply in Dask's protocol). {advice}") from None
    except OSError as exc:  # nothing accepted the connection: refused, unreachable
        cause = exc
        while cause.__cause__ is not None:  # the system's own error, under Dask's wrappers
            cause = cause.__cause__
        raise ConnectionError(
            f"scheduler={address!r}: no Dask scheduler answered within {timeout} s (nothing "
            f"accepted the connection: {type(cause).__name__}: {cause}). {advice}") from None
    except Exception as exc:  # it answered, in another protocol (a banner, garbage)
        raise ConnectionError(
            f"scheduler={address!r}: the service there answered, but not in Dask's protocol "
            f"({type(exc).__name__}: {exc}): it is no Dask scheduler. {advice}") from None
    kind = info.get("type") if isinstance(info, dict) else None
    if kind != "Scheduler":
        hint = (f" (this {kind}'s scheduler is {info['scheduler']!r})"
                if isinstance(info, dict) and info.get("scheduler") else "")
        raise ConnectionError(f"scheduler={address!r} is a Dask {kind or 'service'}, not a "
                              f"scheduler: pass the scheduler's address{hint}.")
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(f"scheduler={address!r}: the scheduler answered, but the Client "
                              f"could not start within {timeout} s ({type(exc).__name__}: "
                              f"{exc}).") from None


def get_client(scheduler=None, timeout=_CONNECT_TIMEOUT):
    """The :class:`distributed.Client` that ``scheduler`` names.

    Parameters
    ----------
    scheduler : None, str or distributed.Client, default=None
        ``None``: the Client made current by the user (``Client(...)`` in the session), else
        a :class:`distributed.LocalCluster` in this process with one single-threaded worker
        per core (:func:`n_cores`), started once and reused by every estimator (the compiled
        loops release the GIL, so its threads run in parallel; more partitions than cores
        queue on them). A string: the address of a running scheduler
        (``'tcp://10.0.0.5:8786'``; TLS addresses take their credentials from Dask's
        configuration), to which one Client per address is connected and reused. A Client:
        used as it is.
    timeout : float, default=_CONNECT_TIMEOUT
        Seconds to wait for a scheduler given by its address: the connection, Dask's
        handshake and the scheduler's reply together.

    Raises
    ------
    ValueError
        If ``scheduler`` is a string that is not an address, or a TLS address with no
        credentials configured.
    ConnectionError
        If no Dask scheduler answers at the address within ``timeout`` seconds: nothing
        listens, the host is unreachable, or what answers is not a Dask scheduler (an HTTP
        server, the dashboard's port, a service that sends a banner, a Dask worker).
    """
    distributed = _import_distributed()
    if isinstance(scheduler, distributed.Client):
        return scheduler
    if scheduler is None:
        try:
            return distributed.default_client()
        except ValueError:  # no Client is current: this module's local cluster
            if not _LOCAL_CLIENTS or _LOCAL_CLIENTS[0].status != "running":
                if not _LOCAL_CLIENTS:  # after distributed's own exit handlers: runs first
                    atexit.register(_close_local_clusters)
                cluster = distributed.LocalCluster(n_workers=n_cores(), threads_per_worker=1,
                                                   processes=False, dashboard_address=":0")
                _LOCAL_CLIENTS[:] = [distributed.Client(cluster, set_as_default=False)]
            return _LOCAL_CLIENTS[0]
    if isinstance(scheduler, str):
        client = _ADDRESS_CLIENTS.get(scheduler)
        if client is None or client.status != "running":
            client = _ADDRESS_CLIENTS[scheduler] = _connect(scheduler, timeout)
        return client
    raise TypeError("scheduler must be None, an address string or a distributed.Client, "
                    f"got {type(scheduler).__name__}.")


def _is_client(scheduler):
    """True for a :class:`distributed.Client` (one exists only once distributed is imported)."""
    distributed = sys.modules.get("distributed")
    return distributed is not None and isinstance(scheduler, distributed.Client)


class _SchedulerParameter:
    """The ``scheduler`` parameter of the Dask estimators: a live Client survives clone and
    pickle.

    A :class:`distributed.Client` holds a connection and an event loop, which neither
    :func:`copy.deepcopy` (what :func:`sklearn.base.clone` does to a parameter) nor pickle
    can copy. It is treated as joblib's ``n_jobs`` is: a handle on shared resources, not a
    value. :func:`~sklearn.base.clone` gives the clone the same Client, so ``GridSearchCV``
    and ``cross_val_score`` run every fit on it; pickling (and :func:`copy.deepcopy`) stores
    the Client as its scheduler's address, which the loaded estimator reconnects to when it
    next needs the cluster (:func:`get_client`).
    """

    def __sklearn_clone__(self):
        if not _is_client(self.scheduler):
            return super().__sklearn_clone__()
        unbound = copy.copy(self)
        unbound.scheduler = None
        new = super(_SchedulerParameter, unbound).__sklearn_clone__()
        new.scheduler = self.scheduler
        return new

    def __getstate__(self):
        state = super().__getstate__()
        if _is_client(state.get("scheduler")):
            scheduler = getattr(state["scheduler"], "scheduler", None)
            state = {**state, "scheduler": getattr(scheduler, "address", None)}
        return state
