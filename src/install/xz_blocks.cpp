#include "install/xz_blocks.h"

#include <lzma.h>

#include <memory>
#include <string>

namespace cudaenv {

namespace {

Error corrupt(const std::string& what) { return make_error("xz data is corrupt: " + what); }

using Index = std::unique_ptr<lzma_index, decltype([](lzma_index* index) { lzma_index_end(index, nullptr); })>;

// liblzma's file-info decoder reads the footers and indexes from the end, stream by stream.
Result<Index> read_index(std::span<const std::uint8_t> file) {
  lzma_stream stream = LZMA_STREAM_INIT;
  lzma_index* index = nullptr;
  if (lzma_file_info_decoder(&stream, &index, UINT64_MAX, file.size()) != LZMA_OK) {
    return make_error("cannot start liblzma's xz index reader");
  }
  std::unique_ptr<lzma_stream, decltype(&lzma_end)> ended(&stream, lzma_end);
  stream.next_in = file.data();
  stream.avail_in = file.size();
  while (true) {
    lzma_ret status = lzma_code(&stream, LZMA_RUN);
    if (status == LZMA_STREAM_END) return Index(index);
    if (status == LZMA_SEEK_NEEDED && stream.seek_pos <= file.size()) {
      stream.next_in = file.data() + stream.seek_pos;
      stream.avail_in = file.size() - static_cast<size_t>(stream.seek_pos);
      continue;
    }
    if (status != LZMA_OK) {
      return corrupt("its index cannot be read, so the file is cut short or damaged (liblzma error " + std::to_string(status) +
                     ")");
    }
  }
}

}  // namespace

Result<std::optional<std::vector<XzBlock>>> plain_lzma2_blocks(std::span<const std::uint8_t> file) {
  CUDAENV_TRY_ASSIGN(Index index, read_index(file));
  std::vector<XzBlock> blocks;
  lzma_index_iter iter;
  lzma_index_iter_init(&iter, index.get());
  while (!lzma_index_iter_next(&iter, LZMA_INDEX_ITER_BLOCK)) {
    std::uint64_t offset = iter.block.compressed_file_offset;
    if (offset >= file.size() || iter.block.total_size > file.size() - offset) {
      return corrupt("its index places a block past the end of the file");
    }
    const std::uint8_t* header = file.data() + offset;
    lzma_filter filters[LZMA_FILTERS_MAX + 1];
    lzma_block block{};
    block.version = 1;
    block.check = iter.stream.flags->check;
    block.filters = filters;
    block.header_size = lzma_block_header_size_decode(header[0]);
    if (header[0] == 0 || block.header_size > iter.block.total_size) return corrupt("a block header is cut short");
    if (lzma_block_header_decode(&block, nullptr, header) != LZMA_OK) return corrupt("a block header is damaged");
    std::unique_ptr<lzma_filter, decltype([](lzma_filter* chain) { lzma_filters_free(chain, nullptr); })> freed(filters);
    if (lzma_block_compressed_size(&block, iter.block.unpadded_size) != LZMA_OK ||
        (block.uncompressed_size != LZMA_VLI_UNKNOWN && block.uncompressed_size != iter.block.uncompressed_size)) {
      return corrupt("a block header disagrees with the index");
    }
    if (filters[0].id != LZMA_FILTER_LZMA2 || filters[1].id != LZMA_VLI_UNKNOWN) return std::optional<std::vector<XzBlock>>();
    XzBlock found;
    found.data_offset = static_cast<size_t>(offset) + block.header_size;
    found.data_size = static_cast<size_t>(block.compressed_size);
    found.decoded_size = iter.block.uncompressed_size;
    found.dictionary_size = static_cast<const lzma_options_lzma*>(filters[0].options)->dict_size;
    // Block padding (to a multiple of four bytes) is zeros; the check after it is not read:
    // the archive's sha256 already proved what it would.
    for (size_t at = found.data_offset + found.data_size; at % 4 != 0; ++at) {
      if (file[at] != 0) return corrupt("a block's padding is not zeros");
    }
    blocks.push_back(found);
  }
  return std::optional<std::vector<XzBlock>>(std::move(blocks));
}

}  // namespace cudaenv
