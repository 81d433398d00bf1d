"""How long the thread running Python keeps the interpreter lock while another waits.

A memgate process runs Python on one thread and hands the embedder's forward passes to a
background thread (:mod:`memgate.streams.prefetch`): ONNX Runtime and numpy release the
interpreter lock while they compute, and take it back for the few lines of Python around
each pass (a norm, a future set). CPython makes a thread that wants the lock back wait
until the running thread has held it for the switch interval, 5 ms by default, which is
about as long as one int8 forward pass of a short statement on the 2-core machine. The
background thread then spent a quarter of its time waiting for the lock (LoCoMo dev
file, one embedder thread: 16.2 CPU-s of passes in 21.1 s), and the main thread waited
for its vectors in turn. At 200 µs it got the lock back within a fraction of a pass
(16.2 CPU-s in 17.3 s; the README's Performance section has the runs).

Like the BLAS thread cap (:func:`memgate.core.embedding.limit_blas_threads`), the
interval is the process's, not a gate's: the entry points set it once (the
``switch_interval_us`` setting); a program that embeds memgate as a library keeps its
own.
"""

from __future__ import annotations

import sys

__all__ = ["set_switch_interval"]


def set_switch_interval(us: int) -> float | None:
    """Set the interpreter's switch interval to ``us`` microseconds (``us <= 0``: leave
    it as it is). Returns the interval now in force, in seconds, or None when left.

    >>> before = sys.getswitchinterval()
    >>> set_switch_interval(0) is None
    True
    >>> set_switch_interval(200)
    0.0002
    >>> _ = set_switch_interval(round(before * 1e6))
    """
    if us <= 0:
        return None
    sys.setswitchinterval(us / 1_000_000)
    return round(sys.getswitchinterval(), 9)
