#pragma once
// The shell scripts the binary prints, compiled in from src/shell/init/ and
// completions/ so `cudaenv init` works wherever the binary is.

namespace cudaenv::embedded {

extern const char* const init_bash_zsh;
extern const char* const init_bash;
extern const char* const init_zsh;
extern const char* const init_fish;
extern const char* const completion_bash;
extern const char* const completion_zsh;
extern const char* const completion_fish;

}  // namespace cudaenv::embedded
