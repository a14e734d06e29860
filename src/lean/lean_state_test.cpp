// The hook's state in C (src/lean/lean_state.h) where the C++ wrappers cannot show it: what the
// lean front gets back from lean_without_hook_changes(), pointer for pointer.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "lean/lean_state.h"
#include "util/environment.h"
#include "util/strings.h"

using namespace cudaenv;

TEST_CASE("lean state: without a state the environment is given back as it is") {
  std::vector<std::string> strings{"PATH=/tk/bin:/usr/bin", "HOME=/home/u"};
  std::vector<char*> entries = c_string_array(strings);
  LeanMemory memory;
  CHECK(lean_without_hook_changes(memory.memory(), entries.data()) == entries.data());
}

TEST_CASE("lean state: the hook's entries are reverted, the state dropped, the rest kept as given") {
  std::string state = "cudaenv2\nP\tPATH\t/tk/bin\nS\tCUDA_HOME\t/tk\t/opt/cuda\nU\tCUDACXX\t/tk/bin/nvcc\n";
  std::vector<std::string> strings{"HOME=/home/u", "PATH=/tk/bin:/usr/bin", LEAN_STATE_VARIABLE "=" + state, "CUDA_HOME=/tk",
                                   "CUDACXX=/tk/bin/nvcc"};
  std::vector<char*> entries = c_string_array(strings);
  LeanMemory memory;
  char** pristine = lean_without_hook_changes(memory.memory(), entries.data());
  REQUIRE(pristine != nullptr);
  std::vector<std::string> left;
  for (char** entry = pristine; *entry; ++entry) left.emplace_back(*entry);
  CHECK(left == std::vector<std::string>{"HOME=/home/u", "PATH=/usr/bin", "CUDA_HOME=/opt/cuda"});
  // What the hook did not change is the caller's own string, not a copy.
  CHECK(pristine[0] == entries[0]);
}
