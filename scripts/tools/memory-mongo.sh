#!/usr/bin/env bash
# An in-memory MongoDB-wire server (mongo-java-server 1.47.0, memory backend; from Maven Central,
# built with the Debian JDK and Maven) with MongoDB's write semantics: atomic single-document
# updates, unique indexes, no serial lane needed. Herald detects it as MongoDB, so the benchmark and
# the test suites can run the engine's MongoDB path here, where no mongod can be installed.
# Not a MongoDB: nothing is persisted and its query engine is its own (docs/benchmarks.md). Like
# MongoDB, it serves a filter naming `_id` from the `_id` index whatever else the filter names
# (herald/IndexServedCollection.java), and any other filter from the secondary index that fixes
# the most of its leading fields, in the sort's order when it serves the sort (herald/OrderedIndex.java).
#
#   bash scripts/tools/memory-mongo.sh            # builds once into the tools cache; prints the launcher
#                                                 # (installs the JDK and Maven with apt-get if missing)
#   .tools/bin/memory-mongo [PORT]                # serves 127.0.0.1:PORT (27017) until stopped
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION=1.47.0
# The JVM's options. The whole database lives on the JVM's heap, and with G1's default pause goal
# (200 ms) a young collection copying what was just stored paused the server for 50-127 ms, every
# few seconds under the benchmark's writes: a latency percentile then measured the collector, not
# Herald (a mongod has no such pause). A 20 ms goal keeps those pauses under about 65 ms
# (docs/benchmarks.md, "2026-11-27 (close of day)").
JAVA_OPTIONS="-Xss512k -XX:MaxGCPauseMillis=20"
# The cache is keyed by our sources and the JVM's options too: a change to either builds anew.
SOURCES="$( (cd "$REPO_ROOT/scripts/tools/memory-mongo" && find . -type f | LC_ALL=C sort | xargs sha256sum; echo "$JAVA_OPTIONS") | sha256sum | cut -c1-12)"
out="$TOOLS_CACHE/memory-mongo-$VERSION-$SOURCES"
if [[ ! -x "$out/memory-mongo" ]]; then
  # Debian's JDK and Maven, installed only when missing (as chromium.sh does), so `make test` and
  # .ci/run work on a fresh machine. Needs root (or sudo).
  if ! command -v mvn >/dev/null || ! command -v javac >/dev/null; then
    log "installing Debian's JDK and Maven to build memory-mongo (first time only)"
    SUDO=""
    if [[ "$(id -u)" != 0 ]]; then SUDO="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq >&2
    $SUDO apt-get install -y -qq --no-install-recommends default-jdk-headless maven >&2
  fi
  log "building memory-mongo (mongo-java-server $VERSION; first time only; cached in $TOOLS_CACHE)"
  work="$(mktemp -d)"
  cp -r "$REPO_ROOT/scripts/tools/memory-mongo/." "$work/"
  (cd "$work" && mvn -q -B -Dmongo-java-server.version="$VERSION" package dependency:copy-dependencies -DoutputDirectory=lib) >&2
  rm -rf "$out" && mkdir -p "$out"
  cp "$work"/lib/*.jar "$work"/target/memory-mongo-1.jar "$out/"
  cat > "$out/memory-mongo" <<LAUNCHER
#!/usr/bin/env bash
exec java $JAVA_OPTIONS -cp "$out/*" herald.MemoryMongo "\$@"
LAUNCHER
  chmod +x "$out/memory-mongo"
  rm -rf "$work"
fi
link_tool memory-mongo "$out/memory-mongo"
echo "$TOOLS_BIN/memory-mongo"
