autoload -Uz add-zsh-hook
add-zsh-hook precmd _cudaenv_hook
add-zsh-hook chpwd _cudaenv_hook
_cudaenv() {
@COMPLETION@
}
# compdef exists once compinit has run; if this runs first, register at the first prompt.
_cudaenv_compdef() {
  (( $+functions[compdef] )) || return 0
  compdef _cudaenv cudaenv
  add-zsh-hook -d precmd _cudaenv_compdef
}
if (( $+functions[compdef] )); then
  compdef _cudaenv cudaenv
else
  add-zsh-hook precmd _cudaenv_compdef
fi
