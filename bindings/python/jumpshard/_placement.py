"""Placements: a cluster (a bucket count, a Memento, weights or a node
table) checked once on the client, with the digest of its state that
workers check before they place a key.

A leaf of ``jumpshard.arrow``, which re-exports ``Cluster``, ``Placement``
and ``placement``; it imports no other module of the package but the
extension.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any, List, Optional, Union

import numpy as np

import jumpshard

#: A cluster: a bucket count, or a placement that carries more state.
Cluster = Union[int, "jumpshard.Memento", "jumpshard.Weights", "jumpshard.NodeTable"]


class Placement:
    """A cluster checked once on the client, with a digest of its state, so
    that a worker can prove it places keys as the client does.

    Placements travel to workers by pickling; a worker whose jumpshard reads
    that state differently (another version, a different table file) would
    place keys differently, so every worker recomputes the digest from the
    object it holds and refuses to run on a mismatch.

    A ``Memento`` is copied: a lazy plan places keys with the cluster as it
    was when the plan was made, whatever the caller removes or restores
    before it runs.
    """

    def __init__(self, cluster: Cluster, role: str = "cluster"):
        if isinstance(cluster, (bool, np.bool_)) or not isinstance(
            cluster, (int, np.integer, jumpshard.Memento, jumpshard.Weights, jumpshard.NodeTable)
        ):
            raise TypeError(
                f"{role}: a cluster is a bucket count, a jumpshard.Memento, a jumpshard.Weights "
                f"or a jumpshard.NodeTable, not {type(cluster).__name__}"
            )
        if isinstance(cluster, (int, np.integer)):
            cluster = int(cluster)
            if not 1 <= cluster <= 2**31 - 1:
                name = f"{role}_buckets" if role in ("from", "to") else "the bucket count"
                raise ValueError(f"{name} must be between 1 and {2**31 - 1}, got {cluster}")
        if isinstance(cluster, jumpshard.Memento):
            cluster = copy.copy(cluster)
        self.cluster = cluster
        self.role = role
        self.version = jumpshard.__version__
        self.digest = self._state_digest()

    def _state_digest(self) -> str:
        c = self.cluster
        if isinstance(c, int):
            state = f"jump {c}"
        elif isinstance(c, jumpshard.NodeTable):
            state = "table " + c.to_text()
        elif isinstance(c, jumpshard.Memento):
            state = f"memento {c.barray} {c.removals}"
        else:
            state = f"weights {c.weights}"
        return hashlib.sha256(state.encode()).hexdigest()[:16]

    def check(self) -> None:
        """Raises unless this process places keys exactly as the client did."""
        if self.version != jumpshard.__version__:
            raise RuntimeError(
                f"{self.role}: this worker runs jumpshard {jumpshard.__version__} and the client "
                f"{self.version}: install the same wheel everywhere"
            )
        digest = self._state_digest()
        if digest != self.digest:
            raise RuntimeError(
                f"{self.role}: this process's cluster (digest {digest}) differs from the "
                f"client's ({self.digest}); every worker must place keys with the same cluster"
            )

    @property
    def nodes(self) -> Optional[List[str]]:
        """Slot names, for a node table."""
        return self.cluster.slots if isinstance(self.cluster, jumpshard.NodeTable) else None

    def batch(self, bits: np.ndarray) -> np.ndarray:
        if isinstance(self.cluster, int):
            return jumpshard.batch(bits, self.cluster)
        return self.cluster.batch(bits)

    def replicas(self, bits: np.ndarray, k: int) -> np.ndarray:
        """Every key's replica set, shape (len(bits), k)."""
        if isinstance(self.cluster, int):
            return jumpshard.replicas(bits, self.cluster, k)
        if isinstance(self.cluster, jumpshard.Weights):
            raise TypeError(f"{self.role}: weighted buckets have no replica sets")
        return self.cluster.replicas(bits, k)

    def describe(self) -> Any:
        """The bucket count, or the placement's repr (for summaries)."""
        return self.cluster if isinstance(self.cluster, int) else repr(self.cluster)


def placement(cluster: Union[Cluster, Placement], role: str = "cluster") -> Placement:
    """``cluster`` checked as a ``Placement`` (kept as is when it is one)."""
    return cluster if isinstance(cluster, Placement) else Placement(cluster, role)
