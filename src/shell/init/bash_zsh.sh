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

# The prompt's fast path, without a fork and without reading __CUDAENV_STATE: the plain
# variables hook-env set say where its answer holds and which files would change it.
_cudaenv_unchanged() {
  [[ -n ${_cudaenv_ready-} && ${CUDAENV_VERSION-} == "${_cudaenv_version-}" && ${CUDAENV_TARGET-} == "${_cudaenv_target-}" ]] ||
    return 1
  [[ $PWD == "${_cudaenv_dir-}" ]] || _cudaenv_rescope || return 1
  ! test "${_cudaenv_changed[@]}"
}

# After a cd below the folder of the governing cuda.toml the answer holds unless a nearer
# cuda.toml lies between: watch the folders from $PWD up to it instead.
_cudaenv_rescope() {
  [[ $PWD/ == "${_cudaenv_scope-}"/* ]] || return 1
  local dir=${PWD%/}
  _cudaenv_changed=("${_cudaenv_fixed[@]}")
  while [[ -n $dir && $dir != "$_cudaenv_scope" ]]; do
    _cudaenv_changed+=(-o -e "$dir/cuda.toml")
    dir=${dir%/*}
  done
  _cudaenv_dir=$PWD
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
  unset _cudaenv_ready
  _cudaenv_hook
  return $cudaenv_status
}
