#!/usr/bin/env bash
# An in-memory MongoDB-wire server (mongo-java-server 1.47.0, memory backend; from Maven Central,
# built with the Debian JDK and Maven) with MongoDB's write semantics: atomic single-document
# updates, unique indexes, no serial lane needed. Herald detects it as MongoDB, so the benchmark and
# the test suites can run the engine's MongoDB path here, where no mongod can be installed.
# Not a MongoDB: nothing is persisted and its query engine is its own (docs/benchmarks.md).
#
#   bash scripts/tools/memory-mongo.sh            # builds once into the tools cache; prints the launcher
#   .tools/bin/memory-mongo [PORT]                # serves 127.0.0.1:PORT (27017) until stopped
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION=1.47.0
out="$TOOLS_CACHE/memory-mongo-$VERSION"
if [[ ! -x "$out/memory-mongo" ]]; then
  command -v mvn >/dev/null && command -v javac >/dev/null || {
    log "memory-mongo needs a JDK and Maven: apt-get install -y default-jdk-headless maven"
    exit 1
  }
  log "building memory-mongo (mongo-java-server $VERSION; first time only; cached in $TOOLS_CACHE)"
  work="$(mktemp -d)"
  cp -r "$REPO_ROOT/scripts/tools/memory-mongo/." "$work/"
  (cd "$work" && mvn -q -B -Dmongo-java-server.version="$VERSION" package dependency:copy-dependencies -DoutputDirectory=lib) >&2
  rm -rf "$out" && mkdir -p "$out"
  cp "$work"/lib/*.jar "$work"/target/memory-mongo-1.jar "$out/"
  cat > "$out/memory-mongo" <<LAUNCHER
#!/usr/bin/env bash
exec java -Xss512k -cp "$out/*" herald.MemoryMongo "\$@"
LAUNCHER
  chmod +x "$out/memory-mongo"
  rm -rf "$work"
fi
link_tool memory-mongo "$out/memory-mongo"
echo "$TOOLS_BIN/memory-mongo"
