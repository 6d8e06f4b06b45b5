"""The Hugging Face hub as a run meets it: can the hub be reached, and where is a model?

* :func:`hub_state` finds out ONCE per process whether the hub can be reached: offline when
  ``HF_HUB_OFFLINE`` / ``HF_DATASETS_OFFLINE`` / ``TRANSFORMERS_OFFLINE`` is set, else one TCP connect to
  the hub's host (``HF_ENDPOINT``, default huggingface.co) within :data:`CONNECT_TIMEOUT_S` seconds.
* :func:`go_offline` switches ``huggingface_hub``, ``datasets`` and ``transformers`` to their offline
  mode for a run that cannot reach the hub: each would otherwise retry every request five times
  (~25 s) before failing or falling back to its cache.
* :func:`locate_model` says where a model named by a hub id or a folder is: a local folder, a cached
  hub snapshot, or the online hub; else :class:`ModelNotFound` with one line saying what to do. The
  evaluated model (``pretrained=``), the in-process judge (``hf:``) and TARAZ's embedding model are
  checked alike.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from lm_eval_persian_culture.errors import PackUserError

OFFLINE_ENV = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")
SET_OFFLINE_ENV = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")  # what go_offline sets
CONNECT_TIMEOUT_S = 2.0
DEFAULT_ENDPOINT = "https://huggingface.co"
_TRUE = ("1", "true", "yes", "on")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_HUB_ID = re.compile(r"[\w.-]+(/[\w.-]+)?")


class ModelNotFound(PackUserError, ValueError):
    """A model is neither a local folder, nor in the hub cache, nor on a reachable hub."""


# --------------------------------------------------------------------------- is the hub reachable?
def offline_switches() -> list[str]:
    """The offline variables the user set (truthy), in the order of :data:`OFFLINE_ENV`."""
    return [name for name in OFFLINE_ENV if os.environ.get(name, "").strip().lower() in _TRUE]


def endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


@dataclass(frozen=True)
class HubState:
    reachable: bool
    why: str  # "HF_HUB_OFFLINE set" / "huggingface.co:443 cannot be reached (gaierror: ...)" / "reachable"
    by_user: bool = False  # offline because the user set an offline variable (nothing was probed)

    @property
    def line(self) -> str:
        """The one line a run prints when the hub cannot be reached."""
        if self.by_user:
            return f"offline ({self.why}): models, judges and data are read from local folders and the hub cache only"
        return (
            f"the Hugging Face hub cannot be reached ({self.why}): this run is offline "
            f"({' and '.join(f'{v}=1' for v in SET_OFFLINE_ENV)} set for it, so nothing retries); models, judges "
            "and data are read from local folders and the hub cache only"
        )


def probe(url: str, timeout: float = CONNECT_TIMEOUT_S) -> str | None:
    """None when a TCP connection to ``url``'s host opens within ``timeout`` seconds, else why not.
    Name resolution is inside the timeout too (it runs in a thread a slow resolver cannot hold up)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    outcome: list[str | None] = []

    def connect() -> None:
        try:
            socket.create_connection((host, port), timeout=timeout).close()
            outcome.append(None)
        except OSError as err:
            outcome.append(f"{type(err).__name__}: {err}")

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(timeout + 0.5)
    if not outcome:
        return f"{host}:{port} did not answer within {timeout:g}s"
    return None if outcome[0] is None else f"{host}:{port}: {outcome[0]}"


_state: dict[tuple, HubState] = {}
_forced: list[HubState] = []  # the probed state that made go_offline() set the offline variables


def hub_state(probe_fn: Callable[[str], str | None] = probe) -> HubState:
    """Whether the hub can be reached, found out once per process (per endpoint and offline setting)."""
    if _forced:
        return _forced[-1]
    switches = offline_switches()
    key = (endpoint(), tuple(switches))
    if key not in _state:
        if switches:
            _state[key] = HubState(False, " and ".join(f"{v} set" for v in switches), by_user=True)
        else:
            why = probe_fn(endpoint())
            _state[key] = HubState(why is None, why or "reachable")
    return _state[key]


def _set_offline_constants(value: bool) -> None:
    import sys

    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:
        constants.HF_HUB_OFFLINE = value
    config = sys.modules.get("datasets.config")
    if config is not None:
        config.HF_HUB_OFFLINE = config.HF_DATASETS_OFFLINE = value


def go_offline() -> Callable[[], None]:
    """Switch the hub clients to offline mode (the variables, and the constants the already imported
    ``huggingface_hub`` and ``datasets`` read them into); returns a function that undoes it."""
    _forced.append(hub_state())
    before = {name: os.environ.get(name) for name in SET_OFFLINE_ENV}
    for name in SET_OFFLINE_ENV:
        os.environ[name] = "1"
    _set_offline_constants(True)

    def restore() -> None:
        if _forced:
            _forced.pop()
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        _set_offline_constants(bool(offline_switches()))

    return restore


# --------------------------------------------------------------------------- where is a model?
@dataclass(frozen=True)
class ModelLocation:
    source: str  # "directory", "cache" or "hub"
    path: str  # the directory, the cached snapshot, or the hub id
    revision: str | None = None  # the snapshot's commit, where known


def looks_like_path(name: str) -> bool:
    return name.startswith(("/", "./", "../", "~", ".\\")) or name.count("/") > 1 or os.sep + os.sep in name


def cached_snapshot(repo_id: str, revision: str | None = None, cache_dir: str | None = None) -> Path | None:
    """The hub cache's snapshot folder of a model at ``revision`` (a branch, tag or commit), or None."""
    from huggingface_hub import constants

    root = Path(cache_dir or constants.HF_HUB_CACHE).expanduser() / f"models--{repo_id.replace('/', '--')}"
    revision = revision or "main"
    commit = revision
    if not _COMMIT.fullmatch(revision):
        ref = root / "refs" / revision
        if not ref.is_file():
            return None
        commit = ref.read_text(encoding="utf-8").strip()
    snapshot = root / "snapshots" / commit
    return snapshot if snapshot.is_dir() and any(snapshot.iterdir()) else None


def locate_model(
    name: str,
    setting: str,
    revision: str | None = None,
    state: Callable[[], HubState] | None = None,
    online_check: Callable[[str, str | None], str | None] | None = None,
) -> ModelLocation:
    """Where the model ``name`` (a folder or a hub id ``org/name``) is, without loading it.

    ``setting`` is how the user named it (``pretrained=...``, ``judge_model=hf:...``) for the message.
    A hub id not in the cache is looked for on the hub only when it can be reached; ``online_check``
    (repo id, revision) -> None or why not, may ask the hub whether the model is there.
    """
    path = Path(name).expanduser()
    if path.exists():  # a folder, or a single-file checkpoint (a .gguf for vLLM or llama.cpp)
        return ModelLocation("directory", str(path.resolve()))
    if looks_like_path(name) or not _HUB_ID.fullmatch(name):
        raise ModelNotFound(f"{setting}: no such folder ({path}), and not a hub id like org/name")
    snapshot = cached_snapshot(name, revision)
    if snapshot is not None:
        return ModelLocation("cache", str(snapshot), snapshot.name)
    hub = (state or hub_state)()
    at = f"@{revision}" if revision else ""
    if not hub.reachable:
        from huggingface_hub import constants

        raise ModelNotFound(
            f"{setting}: not a local folder, not in the Hugging Face cache ({constants.HF_HUB_CACHE}), and "
            f"the hub cannot be reached ({hub.why}). Download it where there is a network "
            f"(`huggingface-cli download {name}{' --revision ' + revision if revision else ''}`) or give a local folder"
        )
    if online_check is not None:
        why = online_check(name, revision)
        if why:
            raise ModelNotFound(f"{setting}: {name}{at} {why}")
    return ModelLocation("hub", name, revision)


def hub_model_problem(repo_id: str, revision: str | None = None, timeout: float = 10.0) -> str | None:
    """Ask the hub (one request, no retries) whether it has the model: None when it does or cannot
    tell; else why not ("is not on the hub ...")."""
    try:
        from huggingface_hub import HfApi
        from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError, RevisionNotFoundError
    except ImportError:
        return None
    try:
        HfApi().model_info(repo_id, revision=revision, timeout=timeout)
    except GatedRepoError:
        return None  # there; access is the download's business (it says so)
    except RepositoryNotFoundError:
        return "is not on the Hugging Face hub (misspelt? private models need `huggingface-cli login` or HF_TOKEN)"
    except RevisionNotFoundError:
        return f"has no revision {revision!r} on the hub"
    except Exception:  # noqa: BLE001 - the hub could not tell: loading the model will say more
        return None
    return None


__all__ = [
    "CONNECT_TIMEOUT_S", "HubState", "ModelLocation", "ModelNotFound", "OFFLINE_ENV", "cached_snapshot",
    "endpoint", "go_offline", "hub_model_problem", "hub_state", "locate_model", "looks_like_path",
    "offline_switches", "probe",
]  # fmt: skip
