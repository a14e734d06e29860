autoload -Uz add-zsh-hook
add-zsh-hook precmd _cudaenv_hook
add-zsh-hook chpwd _cudaenv_hook
# Completions need compinit; run this integration after it in ~/.zshrc.
if (( $+functions[compdef] )); then
  _cudaenv() {
@COMPLETION@
  }
  compdef _cudaenv cudaenv
fi
