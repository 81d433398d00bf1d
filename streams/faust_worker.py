"""The Faust worker process around the app (:func:`memgate.streams.app.create_app`): its
logging and its event loop."""

from __future__ import annotations

import asyncio
import logging
from typing import cast

import faust

__all__ = ["event_loop_policy", "faust_worker"]

log = logging.getLogger("memgate.worker")


def faust_worker(app: faust.App, loglevel: str, uvloop: bool = True) -> faust.Worker:
    """The Faust worker of ``app``, logging at ``loglevel`` and nothing below, on uvloop's
    event loop when ``uvloop`` and it is installed (:func:`event_loop_policy`).

    Without a terminal spinner: Faust's spinner sets the root logger to DEBUG for the
    worker's whole life (its handler spins on every record), so every debug call of
    aiokafka and Faust, several per message, built a log record that no handler wrote
    (about 5 % of the worker's time holding the GIL)."""
    asyncio.set_event_loop_policy(event_loop_policy(uvloop))
    worker = faust.Worker(app, loglevel=loglevel, quiet=True)
    worker.spinner = None
    return worker


def event_loop_policy(uvloop: bool) -> asyncio.AbstractEventLoopPolicy:
    """uvloop's event loop policy when asked for and installed, else asyncio's own.

    The worker's CPU per message, on the same agents, falls by about a tenth with it
    (README Performance): Kafka's sends and fetches, tasks and timers cost less."""
    if uvloop:
        try:
            import uvloop as uv
        except ImportError:
            log.info("event=uvloop_missing hint='pip install uvloop, or set worker_uvloop=false'")
        else:
            return cast(asyncio.AbstractEventLoopPolicy, uv.EventLoopPolicy())
    return asyncio.DefaultEventLoopPolicy()
