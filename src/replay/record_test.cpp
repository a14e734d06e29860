// The shim's record (replay/record.h): the inputs, the watches against the real file system,
// the file format against every damage, and the environment a replay runs in.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "replay/record.h"
#include "util/strings.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "cudaenv-record.XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path path;
};

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string inputs_of(std::vector<std::string> environ, const char* cwd = "/p") {
  std::vector<char*> entries = cudaenv::c_string_array(environ);
  std::string out(4096, '\0');
  out.resize(replay_inputs(entries.data(), "nvcc", "/r/shims/nvcc", cwd, out.data(), out.size()));
  return out;
}

replay_watch observed(const fs::path& path, replay_look look) {
  static std::deque<std::string> kept;  // what the watches point into
  kept.push_back(path.string());
  replay_watch watch{};
  REQUIRE(replay_observe(kept.back().c_str(), look, &watch));
  return watch;
}

std::string formatted(const replay_record& record) {
  std::string text(replay_format(&record, nullptr), '\0');
  replay_format(&record, text.data());
  return text;
}

bool parses(std::string text) {
  replay_record record;
  return replay_parse(text.data(), text.size(), &record);
}

}  // namespace

TEST_CASE("record inputs: the variables a resolution reads, as they are, and nothing else") {
  std::string base = inputs_of({"PATH=/usr/bin", "HOME=/h", "TERM=xterm"});
  CHECK(base.size() > 0);
  CHECK(base == inputs_of({"HOME=/h", "PATH=/usr/bin", "TERM=vt100"}));  // order and other variables
  CHECK(base != inputs_of({"PATH=/usr/bin", "HOME=/h", "CUDAENV_VERSION=12.4"}));
  CHECK(base != inputs_of({"PATH=/usr/bin", "HOME=/h", "CUDAENV_VERSION="}));  // empty is not unset
  CHECK(base != inputs_of({"PATH=/usr/bin", "HOME=/h"}, "/q"));
  CHECK(inputs_of({"PATH=/a", "PATH=/b"}) == inputs_of({"PATH=/a"}));  // the first, as getenv
  std::vector<std::string> long_path{"PATH=" + std::string(5000, 'x')};
  CHECK(inputs_of(long_path).empty());  // does not fit: no record
}

TEST_CASE("record watches: missing, identity and content, each broken by what it watches") {
  TempDir dir;
  fs::path file = dir.path / "cuda.toml";
  replay_watch missing = observed(file, REPLAY_IDENTITY);
  CHECK(missing.kind == 'm');
  CHECK(replay_watch_holds(&missing));
  write(file, "[cuda]\nversion = \"12.1\"\n");
  CHECK_FALSE(replay_watch_holds(&missing));

  replay_watch identity = observed(file, REPLAY_IDENTITY);
  replay_watch content = observed(file, REPLAY_CONTENT);
  CHECK((identity.kind == 'i' && content.kind == 'c'));
  CHECK((replay_watch_holds(&identity) && replay_watch_holds(&content)));
  // Rewritten in place, same size: the identity holds, the content does not.
  write(file, "[cuda]\nversion = \"12.4\"\n");
  CHECK(replay_watch_holds(&identity));
  CHECK_FALSE(replay_watch_holds(&content));
  // Its old times put back: the ctime still tells.
  content = observed(file, REPLAY_CONTENT);
  timespec old[2] = {{1000, 0}, {1000, 0}};
  ::utimensat(AT_FDCWD, file.c_str(), old, 0);
  CHECK_FALSE(replay_watch_holds(&content));
  // Made executable: the identity tells (access(2) answers from the mode).
  identity = observed(file, REPLAY_IDENTITY);
  ::chmod(file.c_str(), 0755);
  CHECK_FALSE(replay_watch_holds(&identity));
  // Replaced by another file of the same bytes: a new inode.
  identity = observed(file, REPLAY_IDENTITY);
  write(dir.path / "new", "[cuda]\nversion = \"12.4\"\n");
  ::chmod((dir.path / "new").c_str(), 0755);
  fs::rename(dir.path / "new", file);
  CHECK_FALSE(replay_watch_holds(&identity));

  // A link pointed elsewhere, and a folder listed then added to.
  fs::create_directory(dir.path / "a");
  fs::create_directory(dir.path / "b");
  fs::create_directory_symlink(dir.path / "a", dir.path / "link");
  replay_watch link = observed(dir.path / "link", REPLAY_LINK_IDENTITY);
  CHECK(link.kind == 'l');
  replay_watch folder = observed(dir.path, REPLAY_CONTENT);
  fs::create_directory_symlink(dir.path / "b", dir.path / "link.new");
  fs::rename(dir.path / "link.new", dir.path / "link");
  CHECK_FALSE(replay_watch_holds(&link));
  CHECK_FALSE(replay_watch_holds(&folder));
  replay_watch gone = observed(dir.path / "nothing" / "below", REPLAY_LINK_IDENTITY);
  CHECK(gone.kind == 'n');
  CHECK(replay_watch_holds(&gone));
}

TEST_CASE("record watches: settled only once older than a tick before the resolution") {
  replay_watch watch{};
  watch.kind = 'c';
  watch.ctime_s = watch.mtime_s = 1000;
  watch.ctime_ns = watch.mtime_ns = 500000000;
  CHECK_FALSE(replay_watch_settled(&watch, 1000, 510000000));  // 10 ms: within a tick
  CHECK(replay_watch_settled(&watch, 1000, 530000000));
  watch.ctime_ns = watch.mtime_ns = 0;  // whole seconds: a file system of 1-second times
  CHECK_FALSE(replay_watch_settled(&watch, 1001, 900000000));
  CHECK(replay_watch_settled(&watch, 1002, 100000000));
  watch.kind = 'i';  // identities carry no time
  CHECK(replay_watch_settled(&watch, 1000, 0));
}

TEST_CASE("record file: what is written reads back, any damage is refused") {
  TempDir dir;
  write(dir.path / "cuda.toml", "x");
  std::string inputs = inputs_of({"PATH=/usr/bin"});
  replay_record record{};
  record.inputs = inputs.data();
  record.inputs_size = inputs.size();
  record.watches[record.watch_count++] = observed(dir.path / "cuda.toml", REPLAY_CONTENT);
  record.watches[record.watch_count++] = observed(dir.path / "missing", REPLAY_IDENTITY);
  std::string odd = (dir.path / "a name with\nnewline and spaces").string();
  record.watches[record.watch_count++] = observed(odd, REPLAY_LINK_IDENTITY);
  record.program = "/tk/bin/nvcc";
  record.variables[record.variable_count++] = "PATH=/tk/bin:/usr/bin";
  record.variables[record.variable_count++] = "EMPTY=";
  std::string text = formatted(record);

  std::string copy = text;
  replay_record back;
  REQUIRE(replay_parse(copy.data(), copy.size(), &back));
  CHECK(std::string(back.inputs, back.inputs_size) == inputs);
  REQUIRE(back.watch_count == 3);
  CHECK(std::string(back.watches[2].path) == odd);
  CHECK(back.watches[0].ctime_ns == record.watches[0].ctime_ns);
  CHECK(std::string(back.program) == "/tk/bin/nvcc");
  REQUIRE(back.variable_count == 2);
  CHECK(std::string(back.variables[1]) == "EMPTY=");
  CHECK(replay_watch_holds(&back.watches[0]));

  for (size_t cut = 0; cut < text.size(); ++cut) {
    INFO(cut);
    CHECK_FALSE(parses(text.substr(0, cut)));
  }
  for (size_t at = 0; at < text.size(); ++at) {
    std::string damaged = text;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
    INFO(at);
    CHECK_FALSE(parses(damaged));
  }
  CHECK_FALSE(parses(text + "\n"));
}

TEST_CASE("record file: well-formed records of the wrong shape are refused") {
  // Records whose checksum is right but whose items are not what the CLI writes.
  auto with_sum = [](std::string body) {
    char sum[17];
    std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(replay_hash(body.data(), body.size())));
    return body + "Z16:" + sum + "\n";
  };
  auto item = [](char tag, const std::string& body) { return tag + std::to_string(body.size()) + ":" + body + "\n"; };
  const std::string zeros = " 0 0 0 0 0 0 0 0 0 0 ";
  const std::string head = "cudaenv-replay 1\n" + item('I', "1Pa");
  const std::string program = item('X', "/tk");
  CHECK(parses(with_sum(head + program)));
  CHECK(parses(with_sum(head + item('W', "m" + zeros + "/x") + program + item('V', "A=1"))));
  CHECK_FALSE(parses(with_sum(head)));                                                  // no program
  CHECK_FALSE(parses(with_sum(head + item('X', "tk"))));                                // relative
  CHECK_FALSE(parses(with_sum(head + item('V', "A=1") + program)));                     // a variable first
  CHECK_FALSE(parses(with_sum(head + program + item('V', "=1"))));                      // no name
  CHECK_FALSE(parses(with_sum(head + program + item('V', "A"))));                       // no value
  CHECK_FALSE(parses(with_sum(head + program + program)));                              // two programs
  CHECK_FALSE(parses(with_sum(head + item('Q', "/tk") + program)));                     // unknown item
  CHECK_FALSE(parses(with_sum(head + item('W', "m" + zeros + "x") + program)));         // a relative watch
  CHECK_FALSE(parses(with_sum(head + item('W', "q" + zeros + "/") + program)));         // an unknown kind
  CHECK_FALSE(parses(with_sum(head + item('W', "m 0 0 0 0 0 0 0 0 0 /x") + program)));  // a number short
  CHECK_FALSE(parses(with_sum(head + item('X', std::string("/t\0k", 4)))));             // a NUL inside
  CHECK_FALSE(parses(with_sum("cudaenv-replay 2\n" + item('I', "1Pa") + program)));     // another version
  CHECK_FALSE(parses(with_sum(head + "X99999999:/tk\n")));                              // a length past the end
  std::string many = head;
  for (int i = 0; i <= REPLAY_MAX_WATCHES; ++i) many += item('W', "m" + zeros + "/");
  CHECK_FALSE(parses(with_sum(many + program)));
}

TEST_CASE("record run: the caller's environment with the record's variables set, each name once") {
  replay_record record{};
  record.program = "/tk/bin/nvcc";
  record.variables[record.variable_count++] = "PATH=/tk/bin:/usr/bin";
  record.variables[record.variable_count++] = "CUDA_HOME=/tk";
  std::vector<std::string> strings{"HOME=/h", "PATH=/usr/bin", "PATH=/shadowed", "TERM=x"};
  std::vector<char*> caller = cudaenv::c_string_array(strings);
  char** envp = replay_environment(&record, caller.data());
  REQUIRE(envp);
  std::vector<std::string> got;
  for (char** entry = envp; *entry; ++entry) got.emplace_back(*entry);
  std::free(envp);
  CHECK(got == std::vector<std::string>{"HOME=/h", "PATH=/tk/bin:/usr/bin", "PATH=/tk/bin:/usr/bin", "TERM=x", "CUDA_HOME=/tk"});
}
