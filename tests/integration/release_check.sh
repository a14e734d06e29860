# The release's portability check (scripts/release/check-portable.sh) on programs this host's
# compilers build against Debian 12's glibc 2.36: it refuses a program that needs a glibc symbol
# newer than 2.28 and names each such symbol, a library that is not glibc's, a shim that is not
# static and a program of another machine; it passes static programs and, with a higher limit,
# the program it refused.
. "$(dirname "$0")/lib.sh"
CHECK=(bash "$SRC/scripts/release/check-portable.sh")
command -v cc >/dev/null || skip "no C compiler (scripts/ensure-apt-packages.sh build)"
command -v musl-gcc >/dev/null || skip "musl-gcc is not installed (scripts/ensure-apt-packages.sh build)"
command -v readelf >/dev/null || skip "readelf is not installed (binutils)"
HOST=$(uname -m)

# A program that needs closefrom (GLIBC_2.34) from libc.so.6 and exp (GLIBC_2.29) from libm.so.6.
mkdir -p newer/bin
cat >newer.c <<'EOF'
#include <math.h>
#include <unistd.h>
int main(int argc, char **argv) {
  (void)argv;
  closefrom(3);
  return (int)exp(argc);
}
EOF
cc -O2 -o newer/bin/cudaenv newer.c -lm || fail "cc newer.c"
run_capture "${CHECK[@]}" newer
assert_eq 1 "$STATUS" "a program that needs glibc 2.34 is refused"
assert_contains "$ERR" "bin/cudaenv needs glibc 2.34, newer than 2.28, for:" "the refusal names the program and its newest glibc"
assert_contains "$ERR" "closefrom@GLIBC_2.34" "the refusal names the GLIBC_2.34 symbol"
assert_contains "$ERR" "exp@GLIBC_2.29" "the refusal names libm's GLIBC_2.29 symbol too"
assert_not_contains "$ERR" "@GLIBC_2.2.5" "symbols old enough are not named"

run_capture "${CHECK[@]}" --glibc-max 2.36 --machine "$HOST" newer
assert_eq 0 "$STATUS" "with the limit at 2.36 the same program passes: $ERR"
assert_eq "bin/cudaenv 2.34" "$OUT" "the check reports the newest glibc the program needs"

# Static programs need no glibc at all: a shim built with musl, a program with glibc linked in.
mkdir -p static/bin static/libexec/cudaenv
echo 'int main(void) { return 0; }' >main.c
musl-gcc -static -o static/libexec/cudaenv/cudaenv-shim main.c || fail "musl-gcc -static"
cc -static -o static/bin/tool main.c || fail "cc -static main.c"
echo "not a program" >static/bin/notes.txt
run_capture "${CHECK[@]}" --machine "$HOST" static
assert_eq 0 "$STATUS" "static programs pass: $ERR"
assert_eq $'bin/tool static\nlibexec/cudaenv/cudaenv-shim static' "$OUT" "each ELF program is reported once, other files not at all"

# Every refusal is reported, not only the first: a dynamic shim, a library that is not glibc's.
mkdir -p refused/bin refused/libexec/cudaenv
cc -o refused/libexec/cudaenv/cudaenv-shim main.c || fail "cc main.c"
echo '#include <curl/curl.h>
int main(void) { return curl_version()[0] == 0; }' >curl.c
cc -o refused/bin/cudaenv curl.c -lcurl || fail "cc curl.c -lcurl"
run_capture "${CHECK[@]}" --glibc-max 2.36 refused
assert_contains "$ERR" "bin/cudaenv needs libcurl.so.4, which is not part of glibc: link it statically" "a shared libcurl is refused"
assert_eq 1 "$STATUS" "a dynamic shim is refused"
assert_contains "$ERR" "libexec/cudaenv/cudaenv-shim is not static: it names a program interpreter" "the shim's interpreter"
assert_contains "$ERR" "libexec/cudaenv/cudaenv-shim is not static: it needs libc.so.6" "the shim's libraries"

# The machine is read from each ELF header: this host's programs are not another machine's.
other=aarch64
[ "$HOST" = aarch64 ] && other=x86_64
run_capture "${CHECK[@]}" --machine "$other" static
assert_eq 1 "$STATUS" "programs of another machine are refused"
assert_contains "$ERR" "libexec/cudaenv/cudaenv-shim is built for $HOST, not $other" "the refusal names both machines"

run_capture "${CHECK[@]}" missing-folder
assert_eq 2 "$STATUS" "a folder that does not exist is a usage error"
finish
