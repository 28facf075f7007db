#!/usr/bin/env bash
# Installs the Debian packages the test suite's real clients and the benchmarks' baselines need
# (`npm test` runs this first).
# Idempotent: packages already installed are skipped, and apt is not touched when nothing is
# missing. A client a test needs is never skipped silently: when this script cannot install it,
# it fails and names what to install.
set -euo pipefail

# One line per package, with the tests that use it.
PACKAGES=(
  git          # every repository test
  git-lfs      # Git LFS plugin: the real git-lfs client pushes, clones and locks (plugins/lfs/test/lfs.client.test.ts)
  openssh-client  # git over SSH: ssh, ssh-keygen, ssh-keyscan (plugins/ssh tests, bench ssh-clone)
  gnupg        # signed package indexes: gpgv/gpg verify Release, repomd.xml and signatures
  xz-utils     # Packages.xz, .deb members
  zstd         # .deb members compressed with zstd
  dnf          # RPM registry: dnf installs from the repository
  rpm          # RPM registry: rpmbuild builds test packages, rpmkeys checks signatures
  golang-go    # Go module proxy: go get / go mod download
  r-base-core  # CRAN registry: install.packages from the repository
  conda-package-handling  # conda registry: cph builds .conda and .tar.bz2 test packages
  bzip2        # conda registry: repodata.json.bz2 is checked with the real bzip2
  ruby         # Chef registry: runs the mixlib-authentication signer (test/sign.rb)
  ruby-mixlib-authentication  # Chef registry: requests signed as knife signs them
  openssl      # Alpine index signatures (openssl dgst -verify); the go client test's TLS front
  nginx-light  # benchmarks: nginx serves the same bytes as the baseline (npm run bench)
  chromium     # web interface: playwright-core drives Debian's chromium in the browser tests
  fonts-dejavu-core  # web interface: screenshots render text with a real font
  slapd        # LDAP identity plugin: a throwaway OpenLDAP server the tests start on a loopback port
  ldap-utils   # LDAP identity plugin: ldapadd/ldapmodify change the test directory's users and groups
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-test-deps: all ${#PACKAGES[@]} Debian packages present"
  exit 0
fi

echo "setup-test-deps: installing ${missing[*]}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo -n); else
    echo "setup-test-deps: cannot install as $(id -un) without sudo; install them: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || {
  echo "setup-test-deps: apt-get install failed; install them by hand: apt-get install ${missing[*]}" >&2
  exit 1
}
echo "setup-test-deps: installed ${missing[*]}"
