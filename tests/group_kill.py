# SPDX-License-Identifier: GPL-2.0-only
"""Imported by every Python test that starts bouncelab.

meson ends a test that ran past its timeout with one SIGTERM to the test's
process group, then a SIGKILL only if the test itself is still there. A
Python test dies of the SIGTERM at once; bouncelab takes a first SIGTERM
as "stop after the current step" (a second ends it), so a step that never
ends, as under a mutant's endless loop, outlived its test and spun beside
the tests after it for hours. Here a SIGTERM kills the whole group at
once, the test with it, but only where the test leads its group, as
meson starts it: run from a script, the group would be the script's.
"""
import os
import signal


def _kill_group(signo, frame):
    os.killpg(0, signal.SIGKILL)


if os.getpgrp() == os.getpid():
    signal.signal(signal.SIGTERM, _kill_group)
