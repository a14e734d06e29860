// `cudaenv shim RECORD SHIM ARGV...`: what a shim (shims/shim.c) hands over when it has no
// record that holds. Resolves the program as `exec` and `which` do, from the inputs a record
// keeps and nothing else, records the outcome at RECORD ("-": nowhere) for the shim to replay
// next time, and runs it through the same replay_run() the shim uses.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "core/data_dir.h"
#include "core/program.h"
#include "core/recorded_file_system.h"
#include "core/toolkit_env.h"
#include "store/rehash.h"
#include "util/process.h"
#include "util/strings.h"
#include "util/working_dir.h"

extern char** environ;

namespace cudaenv {

namespace {

// What a run was given: its inputs block and the environment of replay_variables alone.
struct Inputs {
  std::string block;
  EnvMap env;
  fs::path cwd;  // getcwd()'s; empty without one
};

// Without a getcwd() (a folder past PATH_MAX) there are no inputs to record; the resolution
// still runs, and logical_working_dir() says what it can of the folder.
Inputs read_inputs(const std::string& program, const fs::path& shim) {
  Inputs inputs;
  EnvMap all = env_from_environ(environ);
  for (const char* const* name = replay_variables; *name; ++name) {
    if (auto found = all.find(*name); found != all.end()) inputs.env.insert(*found);
  }
  char cwd[PATH_MAX];
  if (!::getcwd(cwd, sizeof cwd)) return inputs;
  inputs.cwd = cwd;
  inputs.block.resize(REPLAY_RECORD_LIMIT);
  inputs.block.resize(replay_inputs(environ, program.c_str(), shim.c_str(), cwd, inputs.block.data(), inputs.block.size()));
  return inputs;
}

bool is_input(const std::string& variable) {
  for (const char* const* name = replay_variables; *name; ++name) {
    if (variable == *name) return true;
  }
  return false;
}

// The record's folder, made where missing, if it is the user's own on a local file system:
// root running another user's shim must leave nothing there that user cannot replace.
bool usable_folder(const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (!usable_folder(dir.parent_path()) || (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)) return false;
    if (::stat(dir.c_str(), &st) != 0) return false;
  }
  return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && is_on_local_file_system(dir);
}

// Whether the watches can vouch for the outcome: all taken, on local file systems, and each old
// enough that a later change would show; and the variables set depend on inputs alone.
bool recordable(const RecordedFileSystem& disk, const EnvChange& change, const timespec& started) {
  if (!disk.complete() || disk.watches().size() > REPLAY_MAX_WATCHES) return false;
  for (const replay_watch& watch : disk.watches()) {
    if (!replay_watch_settled(&watch, started.tv_sec, started.tv_nsec) || !is_on_local_file_system(watch.path)) return false;
  }
  for (const auto& [variable, entry] : change.prepend) {
    if (!is_input(variable)) return false;
  }
  return true;
}

void write_record(const fs::path& path, const replay_record& record) {
  std::string text(replay_format(&record, nullptr), '\0');
  replay_format(&record, text.data());
  if (text.size() > REPLAY_RECORD_LIMIT || !usable_folder(path.parent_path())) return;
  (void)write_file_atomically(path, text, 0644);  // a record not written only costs the next run this one's time
}

Result<int> run_shim(const std::string& record_path, const fs::path& shim, std::vector<std::string> command) {
  std::string program = command.empty() ? "" : fs::path(command[0]).filename().string();
  if (program.empty() || program == "cudaenv-shim" || program == "cudaenv") {
    return make_error("cudaenv-shim runs as a shim, named like the program it stands for",
                      "run `cudaenv rehash` to create the shims", ErrorKind::usage);
  }
  Inputs inputs = read_inputs(program, shim);
  timespec started{};
  ::clock_gettime(CLOCK_REALTIME, &started);
  RecordedFileSystem disk;
  CUDAENV_TRY_ASSIGN(auto layout, layout_for_shim(inputs.env, shim));
  CUDAENV_TRY_ASSIGN(auto cwd, logical_working_dir(inputs.env));
  // Which of $PWD and getcwd() named the folder rests on both being the folder they were.
  if (auto pwd = env_get(inputs.env, "PWD")) disk.watch(*pwd, REPLAY_IDENTITY);
  if (!inputs.cwd.empty()) disk.watch(inputs.cwd, REPLAY_IDENTITY);
  // An upgrade replaces the installed shim: the records then fail, and the first call relinks
  // the shims to the new one. A failed relink costs only that the old shim keeps running.
  if (auto installed = locate_program("cudaenv-shim")) {
    disk.watch(*installed, REPLAY_IDENTITY);
    (void)follow_installed_shim(RealFileSystem(), layout, shim, *installed);
  }
  CUDAENV_TRY_ASSIGN(auto selection, select_toolkit(disk, inputs.env, cwd, layout));
  auto self = running_program();
  auto is_a_shim = [&](const fs::path& candidate) {
    return is_same_program(candidate, shim) || (self && is_same_program(candidate, *self));
  };
  CUDAENV_TRY_ASSIGN(auto path, program_for_selection(disk, inputs.env, layout, selection, program, is_a_shim));
  EnvChange change = selection_env_change(selection);

  std::vector<std::string> variables;
  for (const auto& [name, value] : changed_values(change, env_from_environ(environ))) variables.push_back(name + "=" + value);
  if (variables.size() > REPLAY_MAX_VARIABLES) {
    return make_error("CUDA " + selection.toolkit.name + " sets " + std::to_string(variables.size()) +
                          " variables, more than a shim passes on (" + std::to_string(REPLAY_MAX_VARIABLES) + ")",
                      "run it through `cudaenv exec` instead");
  }
  std::string program_path = path.string();
  auto record = std::make_unique<replay_record>();
  record->inputs = inputs.block.data();
  record->inputs_size = inputs.block.size();
  record->program = program_path.c_str();
  for (const std::string& variable : variables) record->variables[record->variable_count++] = variable.c_str();
  if (record_path != "-" && !inputs.block.empty() && recordable(disk, change, started)) {
    for (const replay_watch& watch : disk.watches()) record->watches[record->watch_count++] = watch;
    write_record(record_path, *record);
  }
  std::vector<char*> argv = c_string_array(command);
  replay_run(record.get(), argv.data(), environ);
  return exec_failure(program_path, errno);
}

struct ShimOptions {
  std::string record;
  std::string shim;
  std::vector<std::string> command;
};

}  // namespace

CommandHandler configure_shim(CLI::App& command) {
  auto options = std::make_shared<ShimOptions>();
  command.group("");
  command.add_option("record", options->record)->required();
  command.add_option("shim", options->shim)->required();
  command.add_option("command", options->command)->allow_extra_args();
  return [options](const Setup&) { return run_shim(options->record, options->shim, options->command); };
}

}  // namespace cudaenv
