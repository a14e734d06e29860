# Hostile archives (whose sha256 matches the manifest) are refused: nothing outside the staging
# folder is written, and nothing is installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

add_fake_release 12.1.1
mkdir -p "$WORK/victim"
# make_hostile NAME KIND: <NAME>-linux-x86_64-1.0-archive.tar.xz holding one benign file and
# then the hostile member.
make_hostile() {
  local relative="$1/linux-x86_64/$1-linux-x86_64-1.0-archive.tar.xz"
  mkdir -p "$MIRROR_ROOT/$1/linux-x86_64"
  python3 - "$MIRROR_ROOT/$relative" "$1-linux-x86_64-1.0-archive" "$2" "$WORK/victim" <<'PY'
import io, sys, tarfile
out, top, kind, victim = sys.argv[1:]
def member(name, type=tarfile.REGTYPE, data=b"", mode=0o644, link=""):
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname, info.size = type, mode, link, len(data)
    return info, io.BytesIO(data) if data else None
members = [member(top + "/", tarfile.DIRTYPE, mode=0o755), member(top + "/bin/", tarfile.DIRTYPE, mode=0o755),
           member(top + "/bin/benign", data=b"ok\n")]
up = "../" * (victim.count("/") + 3)
members += {
    "absolute": [member(victim + "/absolute", data=b"pwned\n")],
    "dotdot": [member(top + "/../../../victim/dotdot", data=b"pwned\n")],
    "symlink-absolute": [member(top + "/bin/link", tarfile.SYMTYPE, link=victim)],
    "symlink-climb": [member(top + "/bin/up", tarfile.SYMTYPE, link="../../victim")],
    "symlink-self-climb": [member(top + "/here", tarfile.SYMTYPE, link="."),
                           member(top + "/out", tarfile.SYMTYPE, link="here/..")],
    "symlink-then-write": [member(top + "/escape", tarfile.SYMTYPE, link=up + victim.lstrip("/")),
                           member(top + "/escape/through", data=b"pwned\n")],
    "hardlink-outside": [member(top + "/bin/hard", tarfile.LNKTYPE, link="../../../../../etc/passwd")],
    "hardlink-absolute": [member(top + "/bin/hard", tarfile.LNKTYPE, link="/etc/passwd")],
    "device": [member(top + "/dev-null", tarfile.CHRTYPE)],
    "fifo": [member(top + "/fifo", tarfile.FIFOTYPE)],
    "setuid": [member(top + "/bin/root-shell", data=b"#!/bin/sh\n", mode=0o4755)],
    "setgid": [member(top + "/bin/group-shell", data=b"#!/bin/sh\n", mode=0o2755)],
    "link-lib": [member(top + "/lib", tarfile.SYMTYPE, link="bin")],
    "link-lib64": [member(top + "/lib64", tarfile.SYMTYPE, link="bin")],
    "link-bin": [member(top + "/bin2", tarfile.DIRTYPE, mode=0o755), member(top + "/include", tarfile.SYMTYPE, link="bin2")],
    "link-nested-lib": [member(top + "/targets/x86_64-linux/", tarfile.DIRTYPE, mode=0o755),
                        member(top + "/targets/x86_64-linux/lib", tarfile.SYMTYPE, link="../../bin")],
    # A hard link to a symlink is a second symlink, whose target now counts from elsewhere.
    "hardlink-to-symlink": [member(top + "/a/", tarfile.DIRTYPE, mode=0o755), member(top + "/a/b/", tarfile.DIRTYPE, mode=0o755),
                            member(top + "/a/b/up", tarfile.SYMTYPE, link="../.."),
                            member(top + "/c/out", tarfile.LNKTYPE, link=top + "/a/b/up")],
    # One archive's link, a later member of the same archive written through it.
    "link-then-member": [member(top + "/x", tarfile.SYMTYPE, link="bin"), member(top + "/x/benign", data=b"pwned\n")],
    # The two halves of a redirection split over two archives of one install.
    "redirect-link": [member(top + "/share", tarfile.SYMTYPE, link="bin")],
    "redirect-write": [member(top + "/share/", tarfile.DIRTYPE, mode=0o755), member(top + "/share/nvcc", data=b"pwned\n")],
    # Benign: one link shipped by two archives (the first also links to it with a hard link), and
    # a third archive's link of that name elsewhere.
    "twin-link-a": [member(top + "/lib/", tarfile.DIRTYPE, mode=0o755), member(top + "/lib/libtwin.so.1", data=b"twin\n"),
                    member(top + "/lib/libtwin.so", tarfile.SYMTYPE, link="libtwin.so.1"),
                    member(top + "/lib/libtwin.so.alias", tarfile.LNKTYPE, link=top + "/lib/libtwin.so")],
    "twin-link-b": [member(top + "/lib/", tarfile.DIRTYPE, mode=0o755),
                    member(top + "/lib/libtwin.so", tarfile.SYMTYPE, link="libtwin.so.1")],
    "twin-link-other": [member(top + "/lib/libtwin.so", tarfile.SYMTYPE, link="libother.so")],
    # Benign but odd: one header shipped by two archives with different bytes, and a hard link to
    # a file of another archive.
    "overlap-a": [member(top + "/include/", tarfile.DIRTYPE, mode=0o755), member(top + "/include/x.h", data=b"from a\n")],
    "overlap-b": [member(top + "/include/", tarfile.DIRTYPE, mode=0o755), member(top + "/include/x.h", data=b"from b, longer\n")],
    "hardlink-across": [member(top + "/bin/x.h", tarfile.LNKTYPE, link=top + "/include/x.h")],
    "hardlink-missing": [member(top + "/bin/y", tarfile.LNKTYPE, link=top + "/lib/missing.so")],
}[kind]
with tarfile.open(out, "w:xz", format=tarfile.GNU_FORMAT) as tar:
    for info, data in members:
        tar.addfile(info, data)
PY
  add_archive 12.1.1 "$1" 1.0 "$relative"
}

KINDS="absolute dotdot symlink-absolute symlink-climb symlink-self-climb symlink-then-write hardlink-outside
hardlink-absolute device fifo setuid setgid link-lib link-lib64 link-bin link-nested-lib link-then-member"
for kind in $KINDS redirect-link redirect-write hardlink-to-symlink twin-link-a twin-link-b twin-link-other \
  overlap-a overlap-b hardlink-across hardlink-missing; do make_hostile "evil_${kind//-/_}" "$kind"; done
write_manifest 12.1.1
start_mirror

for kind in $KINDS; do
  install_from_mirror 12.1.1 --component "evil_${kind//-/_}"
  assert_eq 1 "$STATUS" "$kind: refused"
  assert_contains "$ERR" "evil_${kind//-/_}: archive" "$kind: the error names the component"
  assert_contains "$ERR" "is refused: member" "$kind: the error says why"
  check "$kind: no versions entry" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
  check "$kind: no staging left" no_staging_left
  check "$kind: nothing written outside" test -z "$(ls -A "$WORK/victim")"
  check "$kind: no shims" test ! -e "$CUDAENV_ROOT/shims/nvcc"
done
assert_contains "$(install_from_mirror 12.1.1 --component evil_setuid; echo "$ERR")" "setuid" "setuid named"
assert_contains "$(install_from_mirror 12.1.1 --component evil_link_lib; echo "$ERR")" \
  "member 'evil_link_lib-linux-x86_64-1.0-archive/lib' is a symlink where the toolkit has a folder" "a linked lib/ is named"

# A hard link to a symlink is that symlink at a second place, checked there.
install_from_mirror 12.1.1 --component evil_hardlink_to_symlink
assert_eq 1 "$STATUS" "a hard link to a symlink: refused"
assert_contains "$ERR" "member 'evil_hardlink_to_symlink-linux-x86_64-1.0-archive/c/out' is a hard link to a symlink" \
  "a hard link to a symlink: the member is named"
assert_contains "$ERR" "outside the toolkit folder" "a hard link to a symlink: the error says why"
check "hard link to a symlink: nothing installed" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
check "hard link to a symlink: no staging left" no_staging_left

# A link made by one archive never redirects another's files, whichever is written first: links
# are made once every archive is written, and one cannot replace the folder share/, so the
# install is refused every time (it used to depend on the timing of the two extractions).
for try in 1 2 3 4; do
  install_from_mirror 12.1.1 --force --component evil_redirect_link --component evil_redirect_write
  home="$CUDAENV_ROOT/versions/12.1.1"
  assert_eq 1 "$STATUS" "redirect ($try): refused"
  assert_contains "$ERR" "evil_redirect_link: archive" "redirect ($try): the error names the link's component"
  assert_contains "$ERR" "member 'evil_redirect_link-linux-x86_64-1.0-archive/share' is a symlink where an archive of the install has a folder" \
    "redirect ($try): the error names the link and why"
  check "redirect ($try): nothing installed" test ! -e "$home"
  check "redirect ($try): no staging left" no_staging_left
done

# The same link in two archives is fine, and so is a hard link to a link; another link of that
# name is refused, whichever archive is written first.
install_from_mirror 12.1.1 --component evil_twin_link_a --component evil_twin_link_b
assert_eq 0 "$STATUS" "one link shipped by two archives installs: $ERR"
home="$CUDAENV_ROOT/versions/12.1.1"
assert_eq "libtwin.so.1" "$(readlink "$home/lib/libtwin.so")" "the shared link is kept"
assert_eq "libtwin.so.1" "$(readlink "$home/lib/libtwin.so.alias")" "the hard link to a link is that link"
assert_eq "twin" "$(cat "$home/lib/libtwin.so.alias")" "the hard link to a link reads the file"
rm -rf "$home"
install_from_mirror 12.1.1 --component evil_twin_link_a --component evil_twin_link_other
assert_eq 1 "$STATUS" "two different links of one name: refused"
assert_contains "$ERR" "where an archive of the install has a symlink to" "two different links: the error says why"
check "two different links: nothing installed" test ! -e "$home"
check "two different links: no staging left" no_staging_left

# One file from two archives: the toolkit has the copy of the component first by name, whichever
# archive is written first, and the install says so (it used to keep whichever came last). The
# same bytes in both (bin/benign, in every archive here) are no overlap.
for try in 1 2 3 4; do
  install_from_mirror 12.1.1 --force --component evil_overlap_b --component evil_overlap_a --component evil_hardlink_across
  assert_eq 0 "$STATUS" "overlap ($try): installs: $ERR"
  assert_eq "from a" "$(cat "$home/include/x.h")" "overlap ($try): the first component by name keeps its file"
  assert_contains "$ERR" "warning: evil_overlap_b and evil_overlap_a ship include/x.h with different contents: the toolkit has evil_overlap_a's (the first by name)" \
    "overlap ($try): the install names the file and both components"
  assert_not_contains "$ERR" "bin/benign" "overlap ($try): the same bytes are no overlap"
  check "overlap ($try): a hard link to another archive's file is made" test "$home/bin/x.h" -ef "$home/include/x.h"
  check "overlap ($try): no copy left" test -z "$(find "$home" -name '.cudaenv-overlap-*')"
done
rm -rf "$home"
install_from_mirror 12.1.1 --component evil_hardlink_missing
assert_eq 1 "$STATUS" "a hard link to a file no archive has: refused"
assert_contains "$ERR" "member 'evil_hardlink_missing-linux-x86_64-1.0-archive/bin/y' is a hard link to 'lib/missing.so', which no archive of the install has as a file" \
  "a hard link to a missing file: the error names it"
check "a hard link to a missing file: nothing installed" test ! -e "$home"
check "a hard link to a missing file: no staging left" no_staging_left

# The benign archives of the same manifest still install.
install_from_mirror 12.1.1
assert_eq 0 "$STATUS" "benign install succeeds: $ERR"

finish
