# cudaenv shell integration (fish). Set-up: cudaenv init fish | source in config.fish.
# Sourcing it again changes nothing: PATH gets the shims once, functions are redefined.
contains -- @SHIMS@ $PATH; or set -gx PATH @SHIMS@ $PATH
# Scripts started from this shell, and the completions, call cudaenv by its name.
contains -- @BIN_DIR@ $PATH; or set -gx PATH $PATH @BIN_DIR@

# The prompt's fast path, without a fork: same folder, same CUDAENV_VERSION, and every
# watched path as __CUDAENV_STATE recorded it (a stamp file carries each mtime).
function __cudaenv_unchanged
    set -q __CUDAENV_STATE; or return 1
    set -l lines (string split \n -- $__CUDAENV_STATE)
    set -l shell_version ''
    set -q CUDAENV_VERSION; and set shell_version "$CUDAENV_VERSION"
    test "$lines[1]" = cudaenv1 -a "$lines[2]" = "$PWD" -a "$lines[3]" = "$shell_version"; or return 1
    # Watch lines start with - = or !, the rest of the state with a letter. Each command
    # substitution costs fish tens of microseconds, so there are only two.
    string match -q -- '!*' $lines[4..-1]; and return 1
    set -l absent (string replace -rf -- '^-' '' $lines[4..-1])
    if set -q absent[1]
        path filter -q -- $absent; and return 1
    end
    set -l pairs (string replace -rf -- '^=([^\t]*)\t(.*)$' '$1'\n'$2' $lines[4..-1])
    while set -q pairs[2]
        test -e "$pairs[1]"; and not test "$pairs[1]" -nt "$pairs[2]"; and not test "$pairs[1]" -ot "$pairs[2]"
        or return 1
        set -e pairs[1..2]
    end
    return 0
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
    set -gx __CUDAENV_STATE "!$__CUDAENV_STATE"
    __cudaenv_hook
    return $cudaenv_status
end

@COMPLETION@
