# Sourced by build-aux/setup-onnx and build-aux/setup-onnxruntime: apt options for a
# private view of Debian 13 ("trixie") beside the system's Debian 12, through the same
# Debian archive the system's own apt configuration names (nothing of the system's
# sources, lists or state is changed, and nothing gets installed).
#
#   debian13_apt WORK_DIR TYPES   sets the array debian13_apt_options (for apt-get)
#                                 for package TYPES ("deb" or "deb-src"); returns 1
#                                 when the system's apt names no Debian archive.

# The URI of the Debian archive the system's apt reads its own release from (not the
# security archive), as `apt-cache policy` lists it, e.g. " 500 URI bookworm/main ...".
debian_archive_uri () {
  local codename
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || return 1
  apt-cache policy 2>/dev/null |
    awk -v release="$codename/main" '$3 == release && $2 ~ /^[a-z]+:\/\// { print $2; exit }'
}

debian13_apt () {
  local work=$1 types=$2 uri
  uri=$(debian_archive_uri) || return 1
  [ -n "$uri" ] || return 1
  mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial"
  cat > "$work/parts/debian13.sources" <<SOURCES
Types: $types
URIs: $uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  : > "$work/none.list"
  debian13_apt_options=(-o "Dir::Etc::SourceList=$work/none.list" -o "Dir::Etc::SourceParts=$work/parts"
                        -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
                        -o "Dir::State::Status=/dev/null" -o "APT::Sandbox::User=root")
}
