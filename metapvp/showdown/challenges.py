"""What the challenge bot answers the challenges it gets: which formats and senders it accepts, the
queue of challengers waiting for a free battle slot (first come, first served), and the accepted
challenges whose battle has not begun yet. Decisions only: the client (client.py) sends what they
say over its connection."""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

ACCEPT_WAIT = 30.0  # seconds an accepted challenge counts as a battle before its room appears


@dataclass
class Answer:
    """`accept`, `queue` (the sender told where it stands) or `reject` (told why), with the
    private message that goes with it (None for accept)."""
    kind: str
    message: str | None = None


class Challenges:
    def __init__(self, accept_formats: tuple = (), accept_from: tuple = (), max_concurrent: int = 1,
                 max_queue: int = 16, clock=time.monotonic):
        self.accept_formats, self.accept_from = tuple(accept_formats), tuple(accept_from)
        self.max_concurrent, self.max_queue = max_concurrent, max_queue
        self.clock = clock
        self.queue: deque[str] = deque()       # challengers waiting for a free battle slot, first first
        self.accepted: deque[float] = deque()  # when each accepted challenge without a room yet was

    def withdraw(self, sender: str):
        """A challenge closed, or sent again (it goes to the back of the queue)."""
        if sender in self.queue:
            self.queue.remove(sender)

    def answer(self, sender: str, fmt: str, running: int) -> Answer:
        """What to do with `sender`'s challenge in `fmt`, with `running` battles under way (a
        queued sender is remembered here)."""
        if self.accept_formats and fmt not in self.accept_formats:
            return Answer("reject", f"I only accept {', '.join(self.accept_formats)}.")
        if self.accept_from and sender not in self.accept_from:
            return Answer("reject", "I only accept challenges from my operators' accounts.")
        if self.busy(running) < self.max_concurrent:
            return Answer("accept")
        if len(self.queue) < self.max_queue:
            self.queue.append(sender)
            return Answer("queue", f"I am in {self.busy(running)} battle(s); you are number {len(self.queue)} in the "
                                   "queue, and I will accept your challenge when a battle ends.")
        return Answer("reject", f"I am busy and my queue is full ({self.max_queue} waiting); please try again later.")

    def accepting(self):
        """A challenge is being accepted: it counts as a battle until its room begins."""
        self.accepted.append(self.clock())

    def room_began(self):
        """A battle room appeared: the oldest accepted challenge has its battle."""
        if self.accepted:
            self.accepted.popleft()

    def next_waiting(self, running: int) -> str | None:
        """The longest-waiting challenger, where a battle slot is free (taken off the queue)."""
        return self.queue.popleft() if self.queue and self.busy(running) < self.max_concurrent else None

    def busy(self, running: int) -> int:
        """Battles running, plus challenges accepted whose battle has not begun yet (for at most
        ACCEPT_WAIT seconds)."""
        while self.accepted and self.clock() - self.accepted[0] > ACCEPT_WAIT:
            self.accepted.popleft()
        return running + len(self.accepted)
