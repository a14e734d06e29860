# cudaenv shell integration (fish). Set-up: cudaenv init fish | source in config.fish.
# Sourcing it again changes nothing: PATH gets the shims once, functions are redefined.
contains -- @SHIMS@ $PATH; or set -gx PATH @SHIMS@ $PATH
# Scripts started from this shell, and the completions, call cudaenv by its name.
contains -- @BIN_DIR@ $PATH; or set -gx PATH $PATH @BIN_DIR@

# The prompt's fast path, without a fork and without reading __CUDAENV_STATE: the plain
# variables hook-env set say where its answer holds and which files would change it.
function __cudaenv_unchanged
    set -q __cudaenv_ready; or return 1
    set -l shell_version ''
    set -q CUDAENV_VERSION; and set shell_version "$CUDAENV_VERSION"
    test "$shell_version" = "$__cudaenv_version"; or return 1
    set -l shell_target ''
    set -q CUDAENV_TARGET; and set shell_target "$CUDAENV_TARGET"
    test "$shell_target" = "$__cudaenv_target"; or return 1
    if test "$PWD" != "$__cudaenv_dir"
        __cudaenv_rescope; or return 1
    end
    not test $__cudaenv_changed
end

# After a cd below the folder of the governing cuda.toml the answer holds unless a nearer
# cuda.toml lies between: watch the folders from $PWD up to it instead.
function __cudaenv_rescope
    set -l prefix "$__cudaenv_scope/"
    test (string sub -l (string length -- $prefix) -- "$PWD/") = $prefix; or return 1
    set -l dir (string replace -r '/$' '' -- $PWD)
    set -l changed $__cudaenv_fixed
    while test -n "$dir" -a "$dir" != "$__cudaenv_scope"
        set -a changed -o -e "$dir/cuda.toml"
        set dir (string replace -r '/[^/]*$' '' -- "$dir")
    end
    set -g __cudaenv_changed $changed
    set -g __cudaenv_dir $PWD
end

function __cudaenv_hook --on-event fish_prompt --on-variable PWD
    set -l previous_status $status
    if not __cudaenv_unchanged
        @BIN@ hook-env --shell fish | source
    end
    return $previous_status
end

# `cudaenv shell` changes this shell, so the binary prints code to evaluate; after any
# command (a pin, an install, a trust) the hook runs at once instead of at the prompt.
function cudaenv --description 'CUDA toolkits side by side, one per project'
    set -l cudaenv_status 0
    if test "$argv[1]" = shell
        set -l code (@BIN@ shell --shell-code fish $argv[2..-1]); or return
        string join \n -- $code | source
    else
        @BIN@ $argv
        set cudaenv_status $status
    end
    set -e -g __cudaenv_ready
    __cudaenv_hook
    return $cudaenv_status
end

@COMPLETION@
