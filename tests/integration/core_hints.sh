# Hints name the command that was run: a missing version's nearest match comes with the same
# command, uninstall never suggests installing, untrust suggests untrust, the words other
# version managers use get cudaenv's, and a command made of subcommands lists them.
. "$(dirname "$0")/lib.sh"

make_fake_toolkit "$WORK/tk/cuda-11.8" 11.8.0
make_fake_toolkit "$WORK/tk/cuda-13.0" 13.0.0
make_fake_toolkit "$WORK/tk/cuda-12.4" 12.4.1
for version in 11.8 13.0 12.4; do "$CUDAENV" add "$WORK/tk/cuda-$version" 2>/dev/null; done

for command in prefix global module use; do
  run_capture "$CUDAENV" $command 12.3
  assert_eq 1 "$STATUS" "$command 12.3 fails"
  assert_contains "$ERR" "nearest match: 12.4.1 (\`cudaenv $command 12.4.1\`)" "$command 12.3 suggests $command"
  assert_contains "$ERR" "to install it: cudaenv install 12.3" "$command 12.3: how to install it"
done
run_capture "$CUDAENV" exec --cuda 12.3 -- true
assert_contains "$ERR" "(\`cudaenv exec --cuda 12.4.1\`)" "exec --cuda suggests exec --cuda"
run_capture env CUDAENV_VERSION=12.3 "$CUDAENV" current
assert_contains "$ERR" "(\`cudaenv shell 12.4.1\`)" "a CUDAENV_VERSION miss suggests cudaenv shell"

run_capture "$CUDAENV" uninstall 12.3 --yes
assert_eq 1 "$STATUS" "uninstall of a version that is not installed fails"
assert_contains "$ERR" "installed: 11.8.0, 12.4.1, 13.0.0" "uninstall lists what is installed"
assert_not_contains "$ERR" "install 12.3" "uninstall never suggests installing it"
assert_not_contains "$ERR" "nearest" "nor removing another version"

# 12.x with only 11.8 and 13.0 around: the nearest is another major, and the hint says so.
"$CUDAENV" uninstall 12.4.1 --yes >/dev/null 2>&1
run_capture "$CUDAENV" use 12.1
assert_contains "$ERR" "nearest match: 13.0.0, but that is CUDA 13, not 12 (\`cudaenv use 13.0.0\`)" \
  "a nearest match across majors says so"

mkdir -p "$WORK/no-project" && cd "$WORK/no-project" || exit 1
run_capture "$CUDAENV" untrust
assert_eq 1 "$STATUS" "untrust without a cuda.toml fails"
assert_contains "$ERR" "give its path: cudaenv untrust path/to/cuda.toml" "untrust suggests untrust"
run_capture "$CUDAENV" trust
assert_contains "$ERR" "give its path: cudaenv trust path/to/cuda.toml" "trust suggests trust"

expect_suggestion() {  # expect_suggestion TYPED SUGGESTED
  run_capture "$CUDAENV" $1
  assert_eq 2 "$STATUS" "'cudaenv $1' is a usage error"
  assert_contains "$ERR" "did you mean \`cudaenv $2\`?" "'cudaenv $1' suggests 'cudaenv $2'"
}
expect_suggestion local use
expect_suggestion ls versions
expect_suggestion list versions
expect_suggestion ls-remote list-remote
expect_suggestion help --help
expect_suggestion "help install" "install --help"
expect_suggestion "verions" versions

run_capture "$CUDAENV" mirror bogus
assert_eq 2 "$STATUS" "mirror bogus is a usage error"
assert_contains "$ERR" "unknown subcommand 'bogus' of \`cudaenv mirror\`" "mirror bogus names the word"
assert_contains "$ERR" "\`cudaenv mirror\` has: sync, verify" "and lists mirror's subcommands"
run_capture "$CUDAENV" mirror verfy /tmp
assert_contains "$ERR" "did you mean \`cudaenv mirror verify\`?" "a mistyped subcommand gets the nearest"
run_capture "$CUDAENV" mirror
assert_contains "$ERR" "\`cudaenv mirror\` needs a subcommand" "mirror alone says what it needs"
run_capture "$CUDAENV" mirror sync
assert_contains "$ERR" "run \`cudaenv mirror sync --help\` for usage" "a subcommand's usage error names the subcommand"
finish
