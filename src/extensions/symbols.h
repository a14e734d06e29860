#pragma once
// Which C++ symbols an extension module needs that nothing it will be linked against in torch's
// process defines, and whether torch has them under the other _GLIBCXX_USE_CXX11_ABI.

#include <optional>
#include <string>
#include <vector>

#include "extensions/extension.h"
#include "extensions/loader.h"

namespace cudaenv {

// The module's undefined, non-weak dynamic symbols that no object of its lookup scope defines: its
// own dependency closure (`scope`) and the process's RTLD_GLOBAL objects (`global`). Python's C
// API (Py*, _Py*) is left out: the interpreter defines it. None when everything resolves.
std::optional<MissingSymbols> missing_symbols(const LoadedObject& module, const std::vector<const LoadedObject*>& scope,
                                              const std::vector<const LoadedObject*>& global);

// abi::__cxa_demangle's reading of a mangled name; the name itself when it is not one.
std::string demangled(const std::string& name);

// A demangled name with std::string and std::list written the same way under both C++ ABIs
// (std::__cxx11::basic_string<char, ...> and std::string -> std::string).
std::string abi_neutral(std::string demangled_name);

}  // namespace cudaenv
