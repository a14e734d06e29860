#include "shell/ci_env.h"

#include <algorithm>

#include "util/sha256.h"

namespace cudaenv {

namespace {

// A heredoc delimiter that the value cannot contain: its own hash.
std::string delimiter_for(const std::string& value) { return "CUDAENV_EOF_" + sha256_hex(value).substr(0, 16); }

}  // namespace

GithubEnvText render_github_env(const EnvChange& change, const EnvMap& env) {
  GithubEnvText out;
  std::vector<std::string> path_entries;
  for (const auto& [name, entry] : change.prepend) {
    if (name == "PATH") path_entries.push_back(entry);
  }
  // The runner prepends each line in turn, so the entry that must come first is written last.
  for (auto it = path_entries.rbegin(); it != path_entries.rend(); ++it) out.path += *it + "\n";
  for (const auto& [name, value] : changed_values(change, env)) {
    if (name == "PATH") continue;
    if (value.find('\n') == std::string::npos && value.find('\r') == std::string::npos) {
      out.env += name + "=" + value + "\n";
    } else {
      std::string delimiter = delimiter_for(value);
      out.env += name + "<<" + delimiter + "\n" + value + "\n" + delimiter + "\n";
    }
  }
  return out;
}

Result<std::string> render_dotenv(const EnvChange& change, const EnvMap& env) {
  std::string out;
  for (const auto& [name, value] : changed_values(change, env)) {
    if (value.find_first_of("\r\n") != std::string::npos) {
      return make_error(name + "'s value spans lines, which a dotenv file cannot hold",
                        "use --shell github, bash or json, or remove the newline from cuda.toml's [env]");
    }
    out += name + "=" + value + "\n";
  }
  return out;
}

}  // namespace cudaenv
