// The one translation unit that compiles toml++'s implementation, so the static shim
// needs no shared library and the other files compile only its declarations.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
