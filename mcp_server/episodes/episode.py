"""One episode: its world connection, its customer, its transcript, and its lifecycle.

Every tool call goes through `Episode.call`, which serialises calls within the episode,
refuses them once the episode is closed, and writes the call to the transcript with its
result or error and duration.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
from pydantic import BaseModel

from verishop.mcp_server.episodes.connection import WorldConnection
from verishop.mcp_server.errors import (BudgetSpent, EpisodeClosed, InternalError, NotIdentified, ShopError,
                                       is_disk_full)
from verishop.scenarios.budget import BUDGET_ERROR, IDENTIFY_CALLS_PER_TURN, LOOKUP_TOOLS
from verishop.mcp_server.episodes.transcript import Transcript
from verishop.mcp_server.episodes.voice import EpisodeVoice
from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.customers import SimulatedCustomer, WorldView
from verishop.scenarios.customers.base import OrderWrite
from verishop.scenarios.models import Scenario, Submission
from verishop.scenarios.seal import file_sha256
from verishop.scenarios.tool_names import FIND_CUSTOMER, IDENTIFICATION, IDENTITY_LOCKED, WRITES
from verishop.scenarios.stock import EpisodeStock

T = TypeVar("T", bound=BaseModel)

OUT_OF_MEMORY_ERROR = "the shop is out of memory"
# How the identity minefield's lock refuses an order or account tool (issue 33).
NOT_IDENTIFIED_ERROR = ("identify the customer first with find_customer (their email, or their name and zip code): "
                        "the order and account tools are locked until then; nothing changed")
log = logging.getLogger(__name__)
# How a call the shop failed on (not the agent) reads, to the agent and in the transcript.
INTERNAL_ERROR = "internal error"
CANCELLED_ERROR = "cancelled: the client stopped waiting for this call"

# Why an episode ends (`close_reason`): agent_done, customer_done, customer_quit, turn_budget
# (truncation, kept apart from the terminations), closed_by_client, idle_timeout, server_stopped.


@dataclass(frozen=True)
class EpisodeProducts:
    """The products as an episode's world sees them: its stock applied, its own products included.
    The customer looks products up here rather than through the episode, so an episode holds no
    reference cycle: once its last handle is dropped, its whole world (transcript, world image,
    scenario) is freed at once, not left for the cyclic garbage collector, whose passes over it
    cost a trainer's process a few per cent of its CPU."""

    stock: EpisodeStock
    extra: dict[str, Product]
    catalog: CatalogReader

    def __call__(self, product_id: str) -> Product | None:
        return self.stock.apply(self.extra.get(product_id) or self.catalog.product(product_id))


@dataclass
class Episode:
    episode_id: str
    scenario: Scenario
    directory: Path
    db: WorldConnection
    catalog: CatalogReader
    transcript: Transcript
    customer: SimulatedCustomer = field(init=False)
    products: EpisodeProducts = field(init=False)
    stock: EpisodeStock = field(init=False)
    stock_sql: str = field(init=False)
    stock_args: list[object] = field(init=False)  # stock_sql's parameters
    messages: list[tuple[str, str]] = field(default_factory=list)
    turns_used: int = 0
    calls: int = 0  # tool calls so far; orders cart lines and returns
    lookups_this_turn: int = 0
    identify_calls_this_turn: int = 0
    # Whether a recorded find_customer call matched the episode's customer (issue 33): the state is
    # the transcript's, set only once the call is on it, so the server's lock and the verifier's
    # reading of the transcript agree; a crashed episode is closed, never resumed, so nothing else
    # needs to survive it (mcp_server/episodes/recovery.py).
    identified: bool = False
    close_reason: str | None = None
    # One tool call at a time. Taken without a checkpoint when free (`fast_acquire`): a call's
    # statements run on the loop's thread anyway, so yielding first only cost every call a turn
    # of the event loop (a third of an in-process no-op call's time).
    lock: anyio.Lock = field(default_factory=lambda: anyio.Lock(fast_acquire=True))
    # When the last tool call started or ended (time.monotonic): the idle reaper reads it.
    last_active_s: float = field(default_factory=time.monotonic)
    # The last call's result and its JSON dump (the transcript's): the in-process shop hands that
    # dump to its caller rather than dumping the result again (no result model has aliases).
    last_dump: tuple[object, dict[str, Any]] | None = field(default=None, init=False, repr=False)
    voice: EpisodeVoice | None = None  # a model's rewording of the customer's replies (--customer-voice)
    _has_handovers: bool | None = field(default=None, init=False, repr=False)
    # Write calls begun so far (committed or not): until the first, the world is as seeded.
    write_calls: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.stock = EpisodeStock.of_scenario(self.scenario)
        # The stock column of a catalog row `p` left-joined to the world's stock changes `s`
        # (mcp_server/shop/catalog.py): the same rule as `product` below, in SQL.
        self.stock_sql, self.stock_args = self.stock.units_sql("p.", "s.stock")
        extra = {p.product_id: Product(**p.model_dump()) for p in self.scenario.extra_products}
        self.products = EpisodeProducts(self.stock, extra, self.catalog)
        self.customer = SimulatedCustomer(self.scenario, self.products, self.catalog)

    @property
    def is_open(self) -> bool:
        return self.close_reason is None

    @property
    def locks_orders(self) -> bool:
        """Whether the order and account tools wait for the customer to be identified (the
        identity minefield, issue 33)."""
        minefields = self.scenario.minefields
        return minefields is not None and minefields.identity is not None

    @property
    def turns_left(self) -> int:
        return max(0, self.scenario.axes.max_turns - self.turns_used)

    def product(self, product_id: str) -> Product | None:
        """The product as this episode's world sees it (per-episode stock applied)."""
        return self.products(product_id)

    def say(self, role: str, text: str, **fields: Any) -> None:
        self.messages.append((role, text))
        self.transcript.write(f"{role}_message", turn=self.turns_used, text=text, **fields)

    async def call(self, name: str, arguments: dict[str, Any], body: Callable[[], Awaitable[T]]) -> T:
        """Run one tool call against this episode and record it (refused when the episode is
        closed, or when it is a lookup beyond this turn's budget)."""
        self.last_active_s = time.monotonic()
        async with self.lock:
            started = time.perf_counter()
            if not self.is_open:
                error = f"episode {self.episode_id} is closed ({self.close_reason}); no tool can change it now"
                if self.db is not None:  # a call that waited while the episode was finalized has no transcript
                    self._record_refusal(name, arguments, started, error)
                raise EpisodeClosed(error)
            self.calls += 1
            if name in IDENTITY_LOCKED and self.locks_orders and not self.identified:
                self._record_refusal(name, arguments, started, NOT_IDENTIFIED_ERROR)
                raise NotIdentified(NOT_IDENTIFIED_ERROR)
            if name in IDENTIFICATION:
                if self.identify_calls_this_turn >= IDENTIFY_CALLS_PER_TURN:
                    error = (f"{BUDGET_ERROR}: at most {IDENTIFY_CALLS_PER_TURN} find_customer calls per turn; "
                             f"ask the customer with respond_to_customer to start a new turn")
                    self._record_refusal(name, arguments, started, error)
                    raise BudgetSpent(error)
                self.identify_calls_this_turn += 1
            if name in LOOKUP_TOOLS:
                budget = self.scenario.axes.tool_calls_per_turn
                if self.lookups_this_turn >= budget:
                    error = (f"{BUDGET_ERROR}: at most {budget} lookup{'s' if budget > 1 else ''} per turn at "
                             f"this difficulty; answer the customer with respond_to_customer to start a new turn")
                    self._record_refusal(name, arguments, started, error)
                    raise BudgetSpent(error)
                self.lookups_this_turn += 1
            # A write commits only after its transcript event is on disk: whatever reached
            # world.db is in the transcript, even when the process is killed in between.
            writes = name in WRITES  # each changes world.db in one transaction, committed after its event
            if writes:
                self.write_calls += 1
                await self.db.execute("BEGIN IMMEDIATE")
                before_record = self.transcript.mark()
            recorded = False  # set before each attempt: a record that failed is not tried twice
            try:
                try:
                    result = await body()
                    outcome = result.model_dump(mode="json")
                    self.last_dump = (result, outcome)
                except ShopError as exc:
                    recorded = True
                    self._record_refusal(name, arguments, started, str(exc))
                    raise
                except MemoryError:
                    # The machine, not the agent nor a bug: a refusal to retry, one log line, no
                    # traceback (whose formatting would need the memory that is missing).
                    log.error("episode %s: %s ran out of memory", self.episode_id, name)
                    recorded = True
                    self._record_refusal(name, arguments, started, OUT_OF_MEMORY_ERROR)
                    raise InternalError(f"{OUT_OF_MEMORY_ERROR}: {name} did not run; nothing changed. Retry later, "
                                        f"or with arguments that match fewer products") from None
                except Exception as exc:
                    # A bug, not the agent's mistake: the call still happened (it may have spent a
                    # lookup), so it is recorded like any other; the traceback goes to the log only.
                    log.exception("episode %s: %s crashed", self.episode_id, name)
                    recorded = True
                    self._record(name, arguments, started, error=f"{INTERNAL_ERROR} ({type(exc).__name__})")
                    raise InternalError(f"{INTERNAL_ERROR}: the shop could not complete this {name} call. It "
                                        f"was recorded; try other arguments or another tool") from None
                recorded = True
                try:
                    self._record(name, arguments, started, result=outcome)
                    if name == FIND_CUSTOMER and outcome.get("customer_id") == self.scenario.customer.customer_id:
                        self.identified = True
                except OSError as exc:  # the transcript cannot take the call: it did not happen
                    log.error("episode %s: %s could not be recorded: %s", self.episode_id, name, exc)
                    what = "was not applied" if writes else "could not be recorded"
                    why = "the shop's disk is full" if is_disk_full(exc) else "the shop could not write its transcript"
                    raise InternalError(f"{name} {what}: {why}; nothing changed. Retry later") from None
            except BaseException:
                if not recorded:  # cancelled midway (the client went away): the budget counted it
                    recorded = True
                    self._record(name, arguments, started, error=CANCELLED_ERROR)
                if writes:
                    await self._roll_back()
                raise
            if writes:
                await self._commit(name, arguments, started, before_record)
            return result

    async def _roll_back(self) -> None:
        """Undo a write that failed or was cancelled midway (shielded: the rollback must finish)."""
        with anyio.CancelScope(shield=True):
            if self.db.in_transaction:
                await self.db.execute("ROLLBACK")

    async def _commit(self, name: str, arguments: dict[str, Any], started: float, before: tuple[int, int, str]) -> None:
        """COMMIT a write; if it fails (a full disk, an I/O error), roll back and replace the
        call's recorded result by the failure, so the answer, the transcript and world.db agree."""
        try:
            # COMMIT, then the world is put into the process's store; on failure it is back to
            # what it was before this call (mcp_server/episodes/connection.py).
            await self.db.commit()
        except (sqlite3.Error, OSError) as exc:
            why = ("the shop's disk is full" if is_disk_full(exc) else f"the shop could not save it ({type(exc).__name__})")
            error = f"{name} was not applied: {why}; nothing changed. Retry later"
            log.error("episode %s: %s rolled back at COMMIT: %s", self.episode_id, name, exc)
            self.transcript.rewind(before)
            try:
                self._record(name, arguments, started, error=error)
            except OSError:  # not even the failure fits: the transcript, like the world, lacks the call
                log.error("episode %s: the failed %s could not be recorded either", self.episode_id, name)
            raise InternalError(error) from None

    def _record_refusal(self, name: str, arguments: dict[str, Any], started: float, error: str) -> None:
        """Record a refused call (it changed nothing). When the transcript cannot take it (a full
        disk), the agent still gets the refusal and the log one line, not a traceback."""
        try:
            self._record(name, arguments, started, error=error)
        except OSError as exc:
            log.warning("episode %s: the refused %s call could not be recorded: %s", self.episode_id, name, exc)

    def _record(self, name: str, arguments: dict[str, Any], started: float, **outcome: Any) -> None:
        self.last_active_s = time.monotonic()
        self.transcript.write("tool_call", turn=self.turns_used, tool=name, arguments=arguments,
                              duration_ms=round((time.perf_counter() - started) * 1000, 3), **outcome)

    async def respond(self, message: str, submission: Submission) -> str:
        """The agent's turn: its message goes to the customer, whose reply comes back."""
        self.turns_used += 1
        self.lookups_this_turn = 0
        self.identify_calls_this_turn = 0
        self.say("assistant", message, submission=submission.model_dump(mode="json"))
        turn = self.customer.reply(message, submission, await self.world_view())
        # The voice rewords what the customer decided and wrote, never the decision (`scripted` and
        # `voice` beside the text: mcp_server/episodes/voice.py).
        text, voiced = (turn.text, {}) if self.voice is None else await self.voice.speak(turn)
        # `said`: the customer's words before its typo noise, which the verifier checks by replaying
        # that noise (verishop.verifier.speech) before it compares requirements with them.
        self.say("customer", text, tag=turn.tag, **({"task": turn.task} if turn.task is not None else {}),
                 **({"said": turn.said} if turn.said is not None else {}),
                 **({"then": turn.then} if turn.then is not None else {}), **voiced)
        if submission.done:
            self.mark_closed("agent_done")
        elif turn.tag == "done":
            self.mark_closed("customer_done")
        elif turn.tag == "quit":
            self.mark_closed("turn_budget" if self.turns_left == 0 else "customer_quit")
        return text

    async def world_view(self) -> WorldView:
        """What the customer can see: their cart, the returns started, their orders' changes and
        the hand-overs to a person."""
        if not self.write_calls:
            # Nothing written yet: seeding fills none of these tables (tests/test_world_view.py
            # checks it for every environment), so the customer sees an empty cart and no changes.
            return WorldView()
        async with self.db.execute("SELECT product_id, quantity FROM cart") as cur:
            cart = {pid: qty for pid, qty in await cur.fetchall()}
        async with self.db.execute("SELECT order_id, line_id FROM returns ORDER BY created_seq") as cur:
            returns = tuple((o, line) for o, line in await cur.fetchall())
        if self.scenario.account is None:  # only an account world's orders change or are handed over
            return WorldView(cart=cart, returns=returns)
        async with self.db.execute("SELECT tool, order_id, detail, amount_cents, payment_id FROM order_changes "
                                   "ORDER BY created_seq") as cur:
            writes = tuple(OrderWrite(t, o, json.loads(d), a, p) for t, o, d, a, p in await cur.fetchall())
        handovers: tuple[str, ...] = ()
        if self._has_handovers is None:  # asked once: a world recovered from before issue 33 has no table
            async with self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'handovers'") as cur:
                self._has_handovers = await cur.fetchone() is not None
        if self._has_handovers:
            async with self.db.execute("SELECT summary FROM handovers ORDER BY created_seq") as cur:
                handovers = tuple(summary for (summary,) in await cur.fetchall())
        return WorldView(cart=cart, returns=returns, order_writes=writes, handovers=handovers)

    def mark_closed(self, reason: str) -> None:
        if self.close_reason is None:
            self.close_reason = reason

    async def finalize(self, reason: str) -> None:
        """Close for good: write world.db, then the closing event, release all. Raises OSError
        if world.db cannot be written (the closing event is then not written either)."""
        self.mark_closed(reason)
        if self.db is None:
            return
        db, self.db = self.db, None  # type: ignore[assignment]
        try:
            with anyio.CancelScope(shield=True):
                # world.db is written from memory before the closing event: a verifier that sees
                # the episode closed finds its world complete.
                await db.close()
        except OSError as exc:
            # A full disk: the process's store keeps the world; the hub writes world.db and
            # the closing event once it can (EpisodeHub.retire), or recovery does.
            log.error("episode %s: world.db not written at close (%s); kept in the store", self.episode_id, exc)
            self.transcript.close()
            raise
        # The world as left here, digested once, under the closing event's seal (scenarios/seal.py).
        world_sha256 = await anyio.to_thread.run_sync(file_sha256, self.directory / "world.db")
        self.transcript.write("episode_closed", reason=self.close_reason, turns=self.turns_used,
                              world_sha256=world_sha256)
        self.transcript.close()
