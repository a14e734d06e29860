#pragma once
// The environment of a toolkit in the forms CI systems read between steps: GitHub Actions'
// $GITHUB_ENV / $GITHUB_PATH files, and the KEY=VALUE lines of a dotenv file (GitLab's
// artifacts:reports:dotenv, docker --env-file). Pure: the caller writes the text.

#include <string>

#include "core/toolkit_env.h"
#include "util/result.h"

namespace cudaenv {

struct GithubEnvText {
  std::string env;   // appended to $GITHUB_ENV
  std::string path;  // appended to $GITHUB_PATH
};

// PATH entries go to $GITHUB_PATH, which the runner puts in front of PATH for later steps
// (the last line first); every other variable goes to $GITHUB_ENV with its value after the
// change, in the runner's heredoc form where the value spans lines.
GithubEnvText render_github_env(const EnvChange& change, const EnvMap& env);

// One KEY=VALUE line per changed variable, values as they are (dotenv has no quoting that
// every reader agrees on); a value holding a newline is refused.
Result<std::string> render_dotenv(const EnvChange& change, const EnvMap& env);

}  // namespace cudaenv
