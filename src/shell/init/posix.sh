# cudaenv shell integration (@SHELL@). Set-up: eval "$(cudaenv init @SHELL@)" in your rc file.
# Sourcing it again changes nothing: PATH gets the shims once, the hook is added once.
case ":${PATH-}:" in
  *:@SHIMS@:*) ;;
  *) export PATH=@SHIMS@"${PATH:+:$PATH}" ;;
esac
# Scripts started from this shell, and the completions, call cudaenv by its name.
case ":${PATH-}:" in
  *:@BIN_DIR@:*) ;;
  *) export PATH="${PATH:+$PATH:}"@BIN_DIR@ ;;
esac

# The prompt's fast path, without a fork: same folder, same CUDAENV_VERSION, and every
# watched path as __CUDAENV_STATE recorded it (a stamp file carries each mtime).
_cudaenv_unchanged() {
  local rest="${__CUDAENV_STATE-}" line file stamp
  local head="cudaenv1
$PWD
${CUDAENV_VERSION-}
"
  [[ $rest == "$head"* ]] || return 1
  rest=${rest#"$head"}
  while [[ $rest == *$'\n'* ]]; do
    line=${rest%%$'\n'*}
    rest=${rest#*$'\n'}
    case $line in
      '') return 0 ;;
      '-'*) [[ -e ${line#-} ]] && return 1 ;;
      '='*)
        file=${line#=}
        stamp=${file#*$'\t'}
        file=${file%%$'\t'*}
        [[ -e $file && ! $file -nt $stamp && ! $file -ot $stamp ]] || return 1
        ;;
      *) return 1 ;;
    esac
  done
  return 1
}

_cudaenv_hook() {
  local previous_exit_status=$?
  if ! _cudaenv_unchanged; then
    trap -- '' INT
    eval "$(@BIN@ hook-env --shell @SHELL@)"
    trap - INT
  fi
  return $previous_exit_status
}

# `cudaenv shell` changes this shell, so the binary prints code to evaluate; after any
# command (a pin, an install, a trust) the hook runs at once instead of at the prompt.
cudaenv() {
  local cudaenv_status=0 cudaenv_code
  if [ "${1-}" = shell ]; then
    shift
    cudaenv_code=$(@BIN@ shell --shell-code @SHELL@ "$@") || return
    eval "$cudaenv_code"
  else
    @BIN@ "$@" || cudaenv_status=$?
  fi
  __CUDAENV_STATE="!${__CUDAENV_STATE:-}"
  _cudaenv_hook
  return $cudaenv_status
}
