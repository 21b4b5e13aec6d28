#!/bin/sh
# Test wrapper for `git bisect run`.
# Exit 0 = good, 1 = bad, 125 = skip (cannot build this commit).
# Edit BUILD and TEST for the project at hand.

BUILD="make -s build"
TEST="make -s test TESTS=tests/test_regression.py"

if ! $BUILD >/dev/null 2>&1; then
    echo "build failed, skipping $(git rev-parse --short HEAD)"
    exit 125
fi

if $TEST >/dev/null 2>&1; then
    exit 0
fi
exit 1
