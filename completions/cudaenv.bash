# bash completion for cudaenv. `cudaenv init bash` loads it; `cmake --install` puts it
# where bash-completion looks. Versions and programs come from the CLI itself.
_cudaenv_words() {
  case $1 in
    installed) command cudaenv versions --bare 2>/dev/null ;;
    # list-remote may be missing from an older cudaenv, or offline: then nothing.
    remote) command cudaenv list-remote --bare --offline 2>/dev/null ;;
    programs)
      local prefix program
      prefix=$(command cudaenv prefix 2>/dev/null) && [[ -n $prefix && -d $prefix/bin ]] || return 0
      for program in "$prefix"/bin/*; do
        [[ -f $program && -x $program ]] && printf '%s\n' "${program##*/}"
      done
      ;;
  esac
}

_cudaenv() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local commands="install uninstall lock list-remote update versions add use global shell current which prefix exec env rehash init trust untrust torch mirror module doctor target config"
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  local command=${COMP_WORDS[1]} flags="" words="" files=""
  case $prev in
    --profile) words="minimal torch full" ;;
    --shell) words="bash zsh fish json github dotenv" ;;
    --installer) words="pip uv" ;;
    --format) [[ $command == module ]] && words="lmod tcl" || words="command requirements pyproject" ;;
    --to) files=dirs ;;
    --python) files=files ;;
    --cuda) [[ $command == exec ]] && words=$(_cudaenv_words installed) || return ;;
    --component | --mirror | --jobs | --platform | --as | --torch | --driver | --packages | --arch | --with | --python) return ;;
  esac
  if [[ -z $words && -z $files ]]; then
    case $command in
      install) flags="--profile --component --mirror --jobs --force --platform --keep-downloads --skip-manifest-pin --source --index-url --library --locked --frozen --no-progress"; words=$(_cudaenv_words remote) ;;
      lock) flags="--platform --mirror --source --index-url --skip-manifest-pin --check --hash" ;;
      uninstall) flags="--yes"; words=$(_cudaenv_words installed) ;;
      use) flags="--unset --host-compiler --unset-host-compiler"; words=$(_cudaenv_words installed) ;;
      prefix) words=$(_cudaenv_words installed) ;;
      global) flags="--unset"; words=$(_cudaenv_words installed) ;;
      shell) flags="--unset"; words=$(_cudaenv_words installed) ;;
      list-remote) flags="--mirror --bare --json --refresh --offline --source --index-url" ;;
      update) flags="--mirror" ;;
      config) flags="--json" ;;
      versions) flags="--bare --json" ;;
      current) flags="--json" ;;
      add) flags="--as --scan"; files=dirs ;;
      which) words=$(_cudaenv_words programs) ;;
      exec)
        # The program's name comes after exec's options and an optional --.
        local at=2
        [[ ${COMP_WORDS[at]} == --cuda ]] && at=4
        [[ ${COMP_WORDS[at]} == -- ]] && ((at++))
        if ((COMP_CWORD < at)) || [[ $COMP_CWORD == "$at" && $cur == -* ]]; then
          flags="--cuda"
        elif ((COMP_CWORD == at)); then
          COMPREPLY=($(compgen -c -- "$cur"))
          return
        else
          files=files
        fi
        ;;
      env) flags="--shell" ;;
      init) ((COMP_CWORD == 2)) && words="bash zsh fish" ;;
      trust | untrust) files=files ;;
      torch) flags="--torch --cuda --driver --cpu --installer --format --json --packages --arch --offline --refresh --with --python" ;;
      mirror)
        if ((COMP_CWORD == 2)); then
          words="sync verify"
        elif [[ ${COMP_WORDS[2]} == verify ]]; then
          files=dirs
        else
          flags="--to --profile --component --platform --mirror --jobs --skip-manifest-pin --no-progress"; words=$(_cudaenv_words remote)
        fi
        ;;
      module) flags="--format --to --all"; words=$(_cudaenv_words installed) ;;
      doctor) flags="--json --python --timeout" ;;
      target)
        if ((COMP_CWORD == 2)); then
          words="save list show remove"
        elif [[ ${COMP_WORDS[2]} == save ]]; then
          flags="--driver --gpu --cuda"
        else
          words=$(command ls "${CUDAENV_ROOT:-$HOME/.cudaenv}/targets" 2>/dev/null | sed -n 's/\.toml$//p')
        fi
        ;;
    esac
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags --help" -- "$cur"))
  elif [[ -n $files ]]; then
    local IFS=$'\n' kind=-f
    [[ $files == dirs ]] && kind=-d
    COMPREPLY=($(compgen "$kind" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  fi
}
complete -o default -F _cudaenv cudaenv
