"""The stall meter counts the time its process stood still, the stall going on included (the
thread that was stopped mid-work may ask before the meter's thread has woken up)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import sys, time
from core.stalls import stall_meter
meter = stall_meter()
meter.stalled_seconds()
time.sleep(1.5)
print("ready", flush=True)
sys.stdin.readline()  # the parent stops this process for 4 s, then sends a line
print(f"{meter.stalled_seconds():.2f}", flush=True)
"""


def test_a_stopped_process_counts_the_stop_as_stalled_even_before_its_meter_wakes():
    child = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert child.stdout.readline().strip() == "ready"
        child.send_signal(signal.SIGSTOP)
        time.sleep(4)
        child.stdin.write("go\n")
        child.stdin.flush()  # waiting in the pipe: read the moment the process runs again
        child.send_signal(signal.SIGCONT)
        stalled = float(child.stdout.readline())
    finally:
        child.kill()
        child.wait()
    assert 2.5 <= stalled <= 5.0, stalled
