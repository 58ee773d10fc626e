#!/usr/bin/env bash
# install.sh -- install Spur's one executable and its Slurm-named links.
#
#   curl -fsSL <url>/install.sh | bash                      # download spur-<os>-<arch> from <url>
#   curl -fsSL <url>/install.sh | bash -s -- --prefix DIR   # with options
#   ./install.sh --from ./spur-linux-x64 [--sha256 HEX]     # air-gapped: a local file, nothing fetched
#
# Every install is verified before anything is touched: the SHA-256 from <file>.sha256 (or
# --sha256), and a signature when a public key is given (SPUR_PUBKEY / --pubkey: a minisign
# key checked with minisign against <file>.minisig, or a PEM key checked with openssl against
# <file>.sig). The new file is written next to the old one, verified again, then renamed over
# it, so a failed or refused install leaves the old one as it was. Re-running is harmless.
set -euo pipefail

LINKS="sbatch srun salloc squeue scancel sinfo sacct scontrol sstat sprio sdiag sacctmgr sshare seff sreport sgather strigger sbcast sattach spurctld spurd spurrestd"
PROG="spur-install"

say() { printf '%s: %s\n' "$PROG" "$*"; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

usage() {
  cat <<'EOF'
Usage: install.sh [options]
  --base-url URL        where to download from (default $SPUR_BASE_URL)
  --from FILE           install this local file instead (air-gapped; nothing is fetched)
  --sha256 HEX          expected SHA-256 (default: <file>.sha256 from the same place)
  --pubkey FILE         also verify a signature with this public key (default $SPUR_PUBKEY)
  --prefix DIR          install into DIR (default /usr/local/bin as root, ~/.local/bin otherwise)
  --arch ARCH           x64 or arm64 (default: from uname -m)
  --no-links            do not write the Slurm-named links (sbatch, srun, ...)
  --force-links         replace existing files of those names that are not links to spur
  --insecure-no-verify  with --from: install without a checksum (not recommended)
EOF
}

BASE_URL="${SPUR_BASE_URL:-}"
FROM=""
SHA256=""
PUBKEY="${SPUR_PUBKEY:-}"
PREFIX="${SPUR_PREFIX:-}"
ARCH="${SPUR_ARCH:-}"
NO_LINKS=0
FORCE_LINKS=0
NO_VERIFY=0

need_arg() { [ "$#" -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"; }
while [ "$#" -gt 0 ]; do
  case "$1" in
    --base-url) need_arg "$@"; BASE_URL="$2"; shift 2 ;;
    --base-url=*) BASE_URL="${1#*=}"; shift ;;
    --from) need_arg "$@"; FROM="$2"; shift 2 ;;
    --from=*) FROM="${1#*=}"; shift ;;
    --sha256) need_arg "$@"; SHA256="$2"; shift 2 ;;
    --sha256=*) SHA256="${1#*=}"; shift ;;
    --pubkey) need_arg "$@"; PUBKEY="$2"; shift 2 ;;
    --pubkey=*) PUBKEY="${1#*=}"; shift ;;
    --prefix) need_arg "$@"; PREFIX="$2"; shift 2 ;;
    --prefix=*) PREFIX="${1#*=}"; shift ;;
    --arch) need_arg "$@"; ARCH="$2"; shift 2 ;;
    --arch=*) ARCH="${1#*=}"; shift ;;
    --no-links) NO_LINKS=1; shift ;;
    --force-links) FORCE_LINKS=1; shift ;;
    --insecure-no-verify) NO_VERIFY=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option $1" ;;
  esac
done

# ---------------------------------------------------------------- platform and prefix
if [ -z "$ARCH" ]; then
  case "$(uname -m)" in
    x86_64|amd64) ARCH=x64 ;;
    aarch64|arm64) ARCH=arm64 ;;
    *) die "no Spur build for this machine ($(uname -m)); builds exist for x86_64 and aarch64" ;;
  esac
fi
case "$(uname -s)" in
  Linux) OS=linux ;;
  Darwin) OS=darwin ;;
  *) die "no Spur build for this system ($(uname -s))" ;;
esac
ASSET="spur-$OS-$ARCH"
if [ -z "$PREFIX" ]; then
  if [ "$(id -u)" -eq 0 ]; then PREFIX=/usr/local/bin; else PREFIX="$HOME/.local/bin"; fi
fi
TARGET="$PREFIX/spur"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/spur-install.XXXXXX")"
STAGED=""
cleanup() { rm -rf "$TMP"; [ -z "$STAGED" ] || rm -f "$STAGED"; }
trap cleanup EXIT

# ---------------------------------------------------------------- tools
have_sha256() { command -v sha256sum >/dev/null 2>&1 || command -v shasum >/dev/null 2>&1 || command -v openssl >/dev/null 2>&1; }

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  else die "no SHA-256 tool found (sha256sum, shasum or openssl): cannot verify the download"
  fi
}

fetch() { # fetch URL FILE
  if command -v curl >/dev/null 2>&1; then curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1"
  else die "neither curl nor wget is installed: cannot download $1 (use --from with a local file)"
  fi
}

# The first word of a .sha256 file ("HEX  name" as sha256sum writes it, or just HEX).
read_sum() { tr -d '\r' <"$1" | awk 'NF { print tolower($1); exit }'; }

valid_sum() { printf '%s' "$1" | grep -Eq '^[0-9a-f]{64}$'; }

is_pem_key() { grep -q 'BEGIN PUBLIC KEY' "$PUBKEY" 2>/dev/null; }

verify_signature() { # verify_signature FILE SIGFILE
  if ! is_pem_key; then
    command -v minisign >/dev/null 2>&1 || die "a signature check was asked for (minisign key $PUBKEY) but minisign is not installed"
    minisign -Vq -p "$PUBKEY" -m "$1" -x "$2" >/dev/null 2>&1 || die "signature check FAILED for $1: not installing"
  else
    command -v openssl >/dev/null 2>&1 || die "a signature check was asked for (PEM key $PUBKEY) but openssl is not installed"
    if openssl pkey -pubin -in "$PUBKEY" -noout -text 2>/dev/null | grep -qi 'ED25519'; then
      openssl pkeyutl -verify -pubin -inkey "$PUBKEY" -rawin -in "$1" -sigfile "$2" >/dev/null 2>&1 \
        || die "signature check FAILED for $1: not installing"
    else
      openssl dgst -sha256 -verify "$PUBKEY" -signature "$2" "$1" >/dev/null 2>&1 \
        || die "signature check FAILED for $1: not installing"
    fi
  fi
  say "signature ok ($(basename "$PUBKEY"))"
}

sig_name() { if is_pem_key; then echo sig; else echo minisig; fi; }

# ---------------------------------------------------------------- get the file and its checksum
if [ -n "$PUBKEY" ] && [ ! -r "$PUBKEY" ]; then die "public key $PUBKEY is not readable"; fi
if [ -n "$FROM" ]; then
  [ -f "$FROM" ] || die "$FROM: no such file"
  SRC="$FROM"
  if [ -z "$SHA256" ] && [ -f "$FROM.sha256" ]; then SHA256="$(read_sum "$FROM.sha256")"; fi
  if [ -z "$SHA256" ] && [ "$NO_VERIFY" -eq 0 ]; then
    die "no checksum for $FROM: give --sha256 HEX or put $(basename "$FROM").sha256 beside it (or --insecure-no-verify)"
  fi
  [ -z "$PUBKEY" ] || SIG="$FROM.$(sig_name)"
  say "installing local file $FROM (nothing is downloaded)"
else
  [ -n "$BASE_URL" ] || die "no download location: set SPUR_BASE_URL or pass --base-url (or --from FILE)"
  BASE_URL="${BASE_URL%/}"
  SRC="$TMP/$ASSET"
  fetch "$BASE_URL/$ASSET" "$SRC" || die "download of $BASE_URL/$ASSET failed"
  say "downloaded $BASE_URL/$ASSET ($(wc -c <"$SRC" | tr -d ' ') bytes)"
  if [ -z "$SHA256" ]; then
    fetch "$BASE_URL/$ASSET.sha256" "$TMP/$ASSET.sha256" || die "download of $BASE_URL/$ASSET.sha256 failed: cannot verify"
    SHA256="$(read_sum "$TMP/$ASSET.sha256")"
  fi
  if [ -n "$PUBKEY" ]; then
    SIG="$TMP/$ASSET.$(sig_name)"
    fetch "$BASE_URL/$ASSET.$(sig_name)" "$SIG" || die "download of $BASE_URL/$ASSET.$(sig_name) failed: cannot verify the signature"
  fi
fi

# ---------------------------------------------------------------- verify (before touching the prefix)
SHA256="$(printf '%s' "$SHA256" | tr 'A-F' 'a-f')"
if [ -n "$SHA256" ]; then
  valid_sum "$SHA256" || die "the expected checksum is not a SHA-256 (64 hex digits): $SHA256"
  have_sha256 || die "no SHA-256 tool found (sha256sum, shasum or openssl): cannot verify $ASSET"
  GOT="$(sha256_of "$SRC")"
  if [ "$GOT" != "$SHA256" ]; then
    die "checksum MISMATCH for $ASSET: expected $SHA256, got $GOT; not installing (the current install, if any, is untouched)"
  fi
  say "sha256 ok ($SHA256)"
else
  say "WARNING: installing without a checksum (--insecure-no-verify)"
fi
if [ -n "$PUBKEY" ]; then
  [ -f "$SIG" ] || die "no signature file $SIG beside $SRC"
  verify_signature "$SRC" "$SIG"
fi

# ---------------------------------------------------------------- install atomically
mkdir -p "$PREFIX" || die "cannot create $PREFIX"
if [ -f "$TARGET" ] && [ ! -L "$TARGET" ] && [ -n "$SHA256" ] && [ "$(sha256_of "$TARGET")" = "$SHA256" ]; then
  chmod 755 "$TARGET"
  say "$TARGET is already this version (same checksum): left as it is"
else
  STAGED="$(mktemp "$PREFIX/.spur.new.XXXXXX")" || die "cannot write in $PREFIX (try --prefix or run as root)"
  cp "$SRC" "$STAGED"
  chmod 755 "$STAGED"
  if [ -n "$SHA256" ] && [ "$(sha256_of "$STAGED")" != "$SHA256" ]; then
    die "the copy in $PREFIX does not match its checksum (disk full?); the current install is untouched"
  fi
  mv -f "$STAGED" "$TARGET"
  STAGED=""
  say "installed $TARGET"
fi

# ---------------------------------------------------------------- links
if [ "$NO_LINKS" -eq 1 ]; then
  say "links not written (--no-links)"
else
  made=""; kept=""; skipped=""
  for name in $LINKS; do
    link="$PREFIX/$name"
    if [ -L "$link" ] && [ "$(readlink "$link")" = "spur" ]; then kept="$kept $name"; continue; fi
    # Anything else by that name (a real Slurm command, a link elsewhere) stays unless forced.
    if { [ -e "$link" ] || [ -L "$link" ]; } && [ "$FORCE_LINKS" -eq 0 ]; then skipped="$skipped $name"; continue; fi
    ln -sfn spur "$link.spur-tmp" && mv -f "$link.spur-tmp" "$link" || die "cannot write the link $link"
    made="$made $name"
  done
  [ -z "$made" ] || say "linked$made -> spur in $PREFIX"
  [ -z "$kept" ] || say "links already in place:$kept"
  [ -z "$skipped" ] || say "WARNING: not replacing existing files that are not links to spur:$skipped (use --force-links)"
fi

VERSION="$("$TARGET" version 2>/dev/null | head -n 1 || true)"
[ -z "$VERSION" ] || say "version: $VERSION"
case ":$PATH:" in
  *":$PREFIX:"*) ;;
  *) say "note: $PREFIX is not in PATH; add it: export PATH=\"$PREFIX:\$PATH\"" ;;
esac
