# shellcheck shell=bash
# Runs this shell on Node 24 LTS, the project's Node (.nvmrc). Source it; do not execute it:
#
#   source scripts/use-node-24.sh
#
# When the `node` on PATH is already 24.x, it is kept. Otherwise (this machine's Node is older, or another
# major) the pinned Node 24 below is taken from the npm registry's node-linux-<arch> package (the official
# binary and headers inside a registry package; npm checks it against the registry's checksum and this
# script against the one pinned here; nothing else is downloaded), unpacked once into
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tracksync/node-<version>
# and its bin/ put first on PATH. npm_config_nodedir points node-gyp at that Node's own headers
# (include/node), so a native module compiled at install builds for Node 24's ABI rather than against the
# machine Node's headers (npm's default nodedir here is /usr, Node 20's). better-sqlite3 13 (package.json's
# overrides) ships Node-API prebuilds and compiles nothing; 12 compiled, and crashed on Node 24 at exit.
# Run `npm ci` afterwards when node_modules was installed under another Node.
#
# Idempotent: a second source, or a cached unpack, costs a version check. Safe under `set -euo pipefail`
# (it sets no shell options). Prints one line naming the node in use; returns non-zero, with the reason on
# stderr, when Node 24 cannot be had.

TRACKSYNC_NODE_VERSION=24.21.0

tracksync_use_node_24() {
  local version=$TRACKSYNC_NODE_VERSION major=${TRACKSYNC_NODE_VERSION%%.*}
  local current='' prefix=''
  if command -v node >/dev/null 2>&1; then
    current=$(node -p 'process.versions.node' 2>/dev/null) || current=''
  fi

  if [[ ${current%%.*} == "$major" ]]; then
    # Already on 24 (nvm, a system package, or a previous source of this script): keep it. Point node-gyp
    # at its headers when they sit beside the binary (an official build's layout), so nothing is fetched.
    prefix=$(node -p 'require("path").dirname(require("path").dirname(process.execPath))')
    if [[ -f $prefix/include/node/node_version.h ]]; then
      export npm_config_nodedir=$prefix
    fi
    echo "Node $current ($(command -v node))"
    return 0
  fi

  local arch integrity
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64)
      arch=x64
      integrity='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='
      ;;
    Linux-aarch64 | Linux-arm64)
      arch=arm64
      integrity='sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g=='
      ;;
    *)
      echo "use-node-24: no Node $version package for $(uname -s) $(uname -m) here; install Node $major" \
        "yourself (nvm install, which reads .nvmrc) and run again" >&2
      return 1
      ;;
  esac

  local cache=${XDG_CACHE_HOME:-$HOME/.cache}/tracksync
  local home=$cache/node-$version
  if [[ ! -x $home/bin/node || ! -f $home/include/node/node_version.h ]]; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "use-node-24: npm is needed to fetch Node $version from the npm registry (or install Node $major)" >&2
      return 1
    fi
    local package=node-linux-$arch@$version work tarball actual
    mkdir -p "$cache" || return 1
    work=$(mktemp -d "$cache/.node-$version.XXXXXX") || return 1
    echo "use-node-24: fetching $package from the npm registry into $home" >&2
    if ! tarball=$(cd "$work" && npm pack "$package" --silent 2>/dev/null | tail -n 1) || [[ ! -f $work/$tarball ]]; then
      echo "use-node-24: npm pack $package failed" >&2
      rm -rf "$work"
      return 1
    fi
    actual=sha512-$(node -e 'const fs = require("fs"), { createHash } = require("crypto");
      process.stdout.write(createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"))' \
      "$work/$tarball")
    if [[ $actual != "$integrity" ]]; then
      echo "use-node-24: $tarball does not match the pinned checksum ($actual)" >&2
      rm -rf "$work"
      return 1
    fi
    mkdir "$work/unpacked" &&
      tar -xzf "$work/$tarball" -C "$work/unpacked" --strip-components=1 &&
      rm -rf "$home" &&
      mv "$work/unpacked" "$home" || {
      echo "use-node-24: could not unpack $tarball into $home" >&2
      rm -rf "$work"
      return 1
    }
    rm -rf "$work"
  fi

  # First on PATH (a later source finds node 24 first and returns above, so PATH does not grow).
  export PATH="$home/bin:$PATH"
  hash -r 2>/dev/null || true
  export npm_config_nodedir=$home
  echo "Node $("$home/bin/node" -p 'process.versions.node') ($home/bin/node, from node-linux-$arch@$version)"
}

tracksync_use_node_24
