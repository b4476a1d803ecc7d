#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regenerates the report's golden files (tests/golden/report/) from
# tests/data/results-fixed.json after an intended change of the output.
# Review the diff before committing it.
set -e
cd "$(dirname "$0")/.."
ninja -C build tests/test_report
rm -rf tests/golden/report
mkdir -p tests/golden/report
BOUNCELAB_UPDATE_GOLDEN=1 ./build/tests/test_report "$PWD/tests" >/dev/null
git status --short tests/golden
