"""A job resumed more than once keeps the first reason it was resumed for."""

from generation.services.engine import recovery_notes_join


def test_a_second_resume_keeps_the_first_reason():
    first = recovery_notes_join(earlier="", note="Re-sent: its task was lost")
    second = recovery_notes_join(earlier=first, note="Resumed by the sweeper: no heartbeat for 3 s")
    assert second == "Re-sent: its task was lost; Resumed by the sweeper: no heartbeat for 3 s"


def test_past_the_limit_the_first_and_the_newest_reason_stay():
    notes = ""
    for n in range(20):
        notes = recovery_notes_join(earlier=notes, note=f"reason {n:02d} " + "x" * 20)
    assert len(notes) <= 300
    assert notes.startswith("reason 00 ") and notes.endswith("reason 19 " + "x" * 20)
    assert "reason 10" not in notes


def test_a_note_longer_than_the_limit_is_cut():
    assert recovery_notes_join(earlier="short", note="y" * 400) == "y" * 300
