#include "shell/fast_path.h"

#include "util/strings.h"

namespace cudaenv {

namespace {

// `test` arguments true when `watch` no longer holds. Only absolute paths: an operand
// starting with '/' can never be read as an operator.
bool add_test(const Watch& watch, std::vector<std::string>& args) {
  std::string path = watch.path.string();
  if (watch.always_stale || !watch.path.is_absolute() || (watch.stamp && !watch.stamp->is_absolute())) return false;
  if (!args.empty()) args.push_back("-o");
  if (!watch.stamp) {
    args.insert(args.end(), {"-e", path});
    return true;
  }
  std::string stamp = watch.stamp->string();
  args.insert(args.end(), {"!", "-e", path, "-o", path, "-nt", stamp, "-o", path, "-ot", stamp});
  return true;
}

std::string quoted_words(const std::vector<std::string>& words, ShellDialect dialect) {
  std::string out;
  for (const std::string& word : words) out += " " + (dialect == ShellDialect::fish ? fish_quote(word) : posix_quote(word));
  return out;
}

}  // namespace

std::string render_fast_path(const FastPath& fast, ShellDialect dialect) {
  bool fish = dialect == ShellDialect::fish;
  std::vector<std::string> fixed, folders;
  bool usable = !fast.fixed.empty() && fast.scope.is_absolute();
  for (const Watch& watch : fast.fixed) usable = usable && add_test(watch, fixed);
  for (const Watch& watch : fast.folders) usable = usable && add_test(watch, folders);
  if (!usable) return fish ? "set -e -g __cudaenv_ready;\n" : "unset _cudaenv_ready;\n";

  std::string scope = fast.scope.string();
  while (!scope.empty() && scope.back() == '/') scope.pop_back();
  if (!folders.empty()) folders.push_back("-o");
  if (fish) {
    return "set -g __cudaenv_dir " + fish_quote(fast.dir) + "; set -g __cudaenv_version " + fish_quote(fast.version_override) +
           "; set -g __cudaenv_target " + fish_quote(fast.target_override) + "; set -g __cudaenv_scope " + fish_quote(scope) +
           ";\n" + "set -g __cudaenv_fixed" + quoted_words(fixed, dialect) + ";\n" + "set -g __cudaenv_changed" +
           quoted_words(folders, dialect) + " $__cudaenv_fixed;\nset -g __cudaenv_ready 1;\n";
  }
  return "_cudaenv_dir=" + posix_quote(fast.dir) + "; _cudaenv_version=" + posix_quote(fast.version_override) +
         "; _cudaenv_target=" + posix_quote(fast.target_override) + "; _cudaenv_scope=" + posix_quote(scope) + ";\n" +
         "_cudaenv_fixed=(" + quoted_words(fixed, dialect) + " );\n" + "_cudaenv_changed=(" + quoted_words(folders, dialect) +
         " \"${_cudaenv_fixed[@]}\" );\n_cudaenv_ready=1;\n";
}

}  // namespace cudaenv
