"""Per-server accounting of the openai backend: each attempt counts at the server it
went to, as answered, failed or given up on (neither), with its latency."""

from __future__ import annotations

from lctui.backends.server_tally import ERROR_CHARS, ServerTallies
from lctui.core.types import ServerShare


class StepClock:
    """A clock that moves only when told (seconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_attempts_count_where_they_went_and_how_they_ended() -> None:
    clock = StepClock()
    tallies = ServerTallies(["http://a/v1", "http://b/v1"], clock=clock)
    answered = tallies.begin(0)
    clock.now = 0.5
    answered.text()
    clock.now = 0.7
    answered.text()  # only the first text sets the time to first token
    clock.now = 2.0
    answered.answered()
    answered.end()
    failed = tallies.begin(1)
    failed.failed("http://b/v1 answered 500: overloaded\nmore lines")
    failed.end()
    given_up = tallies.begin(1)
    given_up.text()
    assert tallies.shares()[1].in_flight == 1
    given_up.end()  # the consumer stopped reading: neither an answer nor an error
    a, b = tallies.shares()
    assert a == ServerShare("http://a/v1", 1, 1, 0, 0, 2.0, 0.5, None)
    assert (b.requests, b.ok, b.errors, b.in_flight, b.latency_s) == (2, 0, 1, 0, None)
    assert b.last_error == "http://b/v1 answered 500: overloaded more lines"
    assert b.ttft_s == 0.0  # the given-up attempt did get text, at once


def test_an_attempt_is_settled_once_and_its_error_kept_short() -> None:
    tallies = ServerTallies(["http://a/v1"])
    attempt = tallies.begin(0)
    attempt.failed("x" * 1000)
    attempt.answered()  # too late: it already failed
    attempt.end()
    (a,) = tallies.shares()
    assert (a.requests, a.ok, a.errors, a.in_flight) == (1, 0, 1, 0)
    assert a.last_error is not None and len(a.last_error) == ERROR_CHARS
    assert ServerShare.from_dict({**a.as_dict(), "added_later": 1}) == a
