"""``SessionChooser``: batches go to the ONNX Runtime session (all cores or one thread) that is
faster per position now, and a change of load moves them (a fake clock: no timing here)."""

from __future__ import annotations

from dlgo.inference.threads import FIRST_RETRY, MAX_RETRY, SessionChooser


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeSession:
    """Costs ``per_position`` seconds of the fake clock per position; counts its batches."""

    def __init__(self, clock: FakeClock, per_position: float) -> None:
        self.clock = clock
        self.per_position = per_position
        self.batches = 0
        self.positions = 0

    def run(self, names, feed):
        n = len(feed["x"])
        self.clock.now += self.per_position * n
        self.batches += 1
        self.positions += n
        return [n]


def _chooser(wide_cost: float, narrow_cost: float) -> tuple[SessionChooser, FakeSession, FakeSession]:
    clock = FakeClock()
    wide, narrow = FakeSession(clock, wide_cost), FakeSession(clock, narrow_cost)
    return SessionChooser([wide, narrow], clock=clock), wide, narrow


def _play(chooser: SessionChooser, batches: int, size: int = 16) -> None:
    for _ in range(batches):
        assert chooser.run({"x": [0] * size}, size) == [size]


def test_an_idle_machine_keeps_all_cores_and_tries_one_thread_ever_more_rarely() -> None:
    chooser, wide, narrow = _chooser(0.003, 0.005)
    _play(chooser, 2000)
    assert chooser.choice == 0
    # Trials after 1, 64, 128, 256, 512 batches, then every 512: few batches on the slow one.
    assert 5 <= narrow.batches <= 2 + 2000 // MAX_RETRY + 5 and wide.batches == 2000 - narrow.batches


def test_a_busy_machine_moves_to_one_thread_at_once_and_back_when_it_is_idle_again() -> None:
    chooser, wide, narrow = _chooser(0.003, 0.005)
    _play(chooser, 300)
    wide.per_position = 0.075  # a second engine and GNU Go on the same cores: barriers stall
    narrow.per_position = 0.012
    before = wide.batches
    _play(chooser, 3)
    assert chooser.choice == 1 and wide.batches - before <= 2  # one slow batch noticed, one trial
    _play(chooser, 1000)
    assert wide.batches - before <= 2 + 1000 // FIRST_RETRY  # tried ever more rarely meanwhile
    wide.per_position, narrow.per_position = 0.003, 0.005  # the others finished
    _play(chooser, MAX_RETRY + 1)
    assert chooser.choice == 0


def test_small_batches_are_not_compared_with_full_ones() -> None:
    """The first batches of a search are small and cost more per position on any session."""
    chooser, wide, narrow = _chooser(0.003, 0.005)
    _play(chooser, 100, size=16)
    for _ in range(50):
        wide.per_position = 0.02  # a batch of 2 pays the fixed cost per call
        chooser.run({"x": [0, 0]}, 2)
    assert chooser.choice == 0 and narrow.batches <= 3
