"""The challenge bot's answers (metapvp/showdown/challenges.py), on a clock the test turns: formats
and senders it refuses, a free slot accepted, a full house queued first come first served up to
its queue, a withdrawn challenge leaving the queue, and an accepted challenge counting as a battle
until its room begins or ACCEPT_WAIT runs out. test_showdown.py plays the same rules over a real
server."""
import unittest

from metapvp.showdown.challenges import ACCEPT_WAIT, Challenges


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class ChallengesTest(unittest.TestCase):
    def test_formats_and_senders_it_does_not_take_are_refused(self):
        desk = Challenges(accept_formats=("gen9randombattle",), accept_from=("alice",))
        refused = desk.answer("alice", "gen9ou", running=0)
        self.assertEqual(refused.kind, "reject")
        self.assertIn("only accept gen9randombattle", refused.message)
        self.assertEqual(desk.answer("mallory", "gen9randombattle", running=0).kind, "reject")
        self.assertEqual(desk.answer("alice", "gen9randombattle", running=0).kind, "accept")

    def test_a_full_house_queues_first_come_first_served_up_to_its_queue(self):
        clock = Clock()
        desk = Challenges(max_concurrent=1, max_queue=2, clock=clock)
        self.assertEqual(desk.answer("a", "f", running=0).kind, "accept")
        desk.accepting()                         # a's battle has not begun: it counts already
        second = desk.answer("b", "f", running=0)
        self.assertEqual(second.kind, "queue")
        self.assertIn("number 1 in the queue", second.message)
        self.assertIn("number 2", desk.answer("c", "f", running=0).message)
        full = desk.answer("d", "f", running=0)
        self.assertEqual(full.kind, "reject")
        self.assertIn("queue is full (2 waiting)", full.message)
        desk.withdraw("b")                        # b closed its challenge: c is next
        self.assertEqual(list(desk.queue), ["c"])
        desk.room_began()                         # a's room appeared: a running battle now
        self.assertIsNone(desk.next_waiting(running=1))
        self.assertEqual(desk.next_waiting(running=0), "c")
        self.assertEqual(list(desk.queue), [])

    def test_an_accepted_challenge_counts_until_its_room_or_the_wait_runs_out(self):
        clock = Clock()
        desk = Challenges(max_concurrent=2, clock=clock)
        desk.accepting()
        self.assertEqual(desk.busy(running=1), 2)
        clock.now += ACCEPT_WAIT + 1              # its room never came
        self.assertEqual(desk.busy(running=1), 1)
        desk.accepting()
        desk.room_began()
        self.assertEqual(desk.busy(running=1), 1)


if __name__ == "__main__":
    unittest.main()
