#!/usr/bin/env bash
# Builds actionlint (the GitHub Actions workflow linter) from the Go module proxy into the tools
# cache; `make test` lints .github/workflows with it (test/release-workflow.test.ts).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ACTIONLINT_VERSION="${ACTIONLINT_VERSION:-v1.7.12}"

exec 9>"$TOOLS_CACHE/.actionlint-build.lock"
flock 9
go_build_wrapped actionlint "$ACTIONLINT_VERSION" github.com/rhysd/actionlint github.com/rhysd/actionlint/cmd/actionlint 0
echo "$TOOLS_BIN/actionlint"
