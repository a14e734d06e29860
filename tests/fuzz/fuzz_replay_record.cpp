// A shim's record (src/replay/record.h), as any bytes in its place: parsing never crashes or
// reads past the file, and what parses is written back to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "replay/record.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  replay_record record;
  if (!replay_parse(text.data(), text.size(), &record)) return 0;
  std::string again(replay_format(&record, nullptr), '\0');
  replay_format(&record, again.data());
  if (again != std::string(reinterpret_cast<const char*>(data), size)) std::abort();
  return 0;
}
