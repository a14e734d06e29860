#include "install/lzma2_decoder.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace cudaenv {

namespace {

constexpr unsigned kStates = 12;
constexpr unsigned kMaxPositionStates = 16;  // pb <= 4
constexpr std::uint32_t kRangeTop = 1u << 24;
constexpr size_t kMaxChunkBytes = size_t{1} << 21;  // an LZMA2 chunk decodes to at most 2 MiB
constexpr unsigned kLiteralCoderSize = 0x300;
constexpr unsigned kMaxLiteralCoders = 16;  // LZMA2 allows lc + lp <= 4
constexpr unsigned kMatchMinLength = 2;
constexpr unsigned kEndSlotModel = 14;  // distance slots below it code their low bits with a model
constexpr unsigned kAlignBits = 4;

Error corrupt(const char* what) { return make_error(std::string("xz data is corrupt: ") + what); }

// The range decoder over one chunk's compressed bytes. Reading past them yields zeros and is
// caught at the chunk's end (the count then exceeds the size), so the hot path has no exit.
struct RangeDecoder {
  std::uint32_t range;
  std::uint32_t code;
  const std::uint8_t* in;
  size_t at;
  size_t size;

  void normalize() {
    if (range < kRangeTop) {
      range <<= 8;
      code = (code << 8) | (at < size ? in[at] : 0u);
      ++at;
    }
  }

  // One bit with `prob` (the model's probability of a 0, of 2048) already loaded; updates the
  // model. All ones for a 1, zero for a 0, computed without a branch on the bit: the literals
  // of poorly compressible data are coin flips that a branch would mispredict half the time.
  std::uint32_t bit_mask(std::uint16_t& model, std::uint32_t prob) {
    normalize();
    std::uint32_t bound = (range >> 11) * prob;
    std::uint32_t mask = 0u - static_cast<std::uint32_t>(code >= bound);
    range = ((range - bound) & mask) | (bound & ~mask);
    code -= bound & mask;
    // Moves prob 1/32 of the way to 0 (a 1 was seen) or to 2048, rounding as the format does:
    // p - (p >> 5) for a 1, p + ((2048 - p) >> 5) for a 0.
    model = static_cast<std::uint16_t>(prob - static_cast<std::uint32_t>(static_cast<std::int32_t>(prob - (2017u & ~mask)) >> 5));
    return mask;
  }

  // One bit where the branch predicts well (the match and length decisions).
  unsigned bit(std::uint16_t& model) {
    normalize();
    std::uint32_t bound = (range >> 11) * model;
    if (code < bound) {
      range = bound;
      model = static_cast<std::uint16_t>(model + ((2048 - model) >> 5));
      return 0;
    }
    range -= bound;
    code -= bound;
    model = static_cast<std::uint16_t>(model - (model >> 5));
    return 1;
  }

  unsigned tree(std::uint16_t* models, unsigned bits) {
    unsigned node = 1;
    for (unsigned i = 0; i < bits; ++i) node = (node << 1) | bit(models[node]);
    return node - (1u << bits);
  }

  unsigned reverse_tree(std::uint16_t* models, unsigned bits) {
    unsigned node = 1, symbol = 0;
    for (unsigned i = 0; i < bits; ++i) {
      unsigned b = bit(models[node]);
      node = (node << 1) | b;
      symbol |= b << i;
    }
    return symbol;
  }

  std::uint32_t direct_bits(unsigned bits) {
    std::uint32_t result = 0;
    do {
      normalize();
      range >>= 1;
      code -= range;
      std::uint32_t mask = 0u - (code >> 31);
      code += range & mask;
      result = (result << 1) + (mask + 1);
    } while (--bits);
    return result;
  }
};

struct LengthModel {
  std::uint16_t choice;
  std::uint16_t choice2;
  std::uint16_t low[kMaxPositionStates][8];
  std::uint16_t mid[kMaxPositionStates][8];
  std::uint16_t high[256];

  // The match length less kMatchMinLength: 0-7, 8-15 or 16-271.
  unsigned decode(RangeDecoder& rc, unsigned position_state) {
    if (!rc.bit(choice)) return rc.tree(low[position_state], 3);
    if (!rc.bit(choice2)) return 8 + rc.tree(mid[position_state], 3);
    return 16 + rc.tree(high, 8);
  }
};

}  // namespace

// The probabilities (all uint16_t, reset together) and the state an LZMA chunk may carry
// into the next.
struct Lzma2Decoder::Model {
  struct Probabilities {
    std::uint16_t is_match[kStates][kMaxPositionStates];
    std::uint16_t is_rep[kStates];
    std::uint16_t is_rep_g0[kStates];
    std::uint16_t is_rep_g1[kStates];
    std::uint16_t is_rep_g2[kStates];
    std::uint16_t is_rep0_long[kStates][kMaxPositionStates];
    std::uint16_t distance_slot[4][64];
    std::uint16_t distance_low[115];  // the reverse trees of slots 4-13, indexed from their base distance
    std::uint16_t align[1 << kAlignBits];
    LengthModel length;
    LengthModel rep_length;
    std::uint16_t literal[kLiteralCoderSize * kMaxLiteralCoders];
  } p;
  unsigned state = 0;
  std::uint32_t reps[4] = {};
  unsigned lc = 0, lp = 0, pb = 0;
};

Lzma2Decoder::Lzma2Decoder(std::uint32_t dictionary_size) : dictionary_size_(dictionary_size), model_(new Model) {
  window_ = (std::max<size_t>(dictionary_size, 4096) + 15) & ~size_t{15};
  // Decoding overwrites only bytes further back than the window, and a chunk is handed out
  // whole before the next is decoded (libarchive asks for more only when done with the last).
  ring_size_ = (std::max(window_ + 1, kMaxChunkBytes) + 0xFFFF) & ~size_t{0xFFFF};
  ring_.reset(new (std::nothrow) std::uint8_t[ring_size_]);
}

Lzma2Decoder::~Lzma2Decoder() = default;

void Lzma2Decoder::start(std::span<const std::uint8_t> data) {
  data_ = data;
  read_ = 0;
  decoded_ = 0;
  pending_ = 0;
  need_dictionary_reset_ = need_properties_ = true;
  ended_ = false;
}

void Lzma2Decoder::reset_state() {
  std::uint16_t* first = reinterpret_cast<std::uint16_t*>(&model_->p);
  std::fill(first, first + sizeof(Model::Probabilities) / sizeof(std::uint16_t), std::uint16_t{1024});
  model_->state = 0;
  std::fill(std::begin(model_->reps), std::end(model_->reps), 0u);
}

Result<std::span<const std::uint8_t>> Lzma2Decoder::next() {
  if (!ring_) {
    return make_error("cannot allocate the " + std::to_string(ring_size_ >> 20) + " MiB an xz dictionary of " +
                          std::to_string(dictionary_size_ >> 20) + " MiB needs",
                      "free memory, then run the install again");
  }
  while (pending_ == 0) {
    if (ended_) {
      if (read_ != data_.size()) return corrupt("an xz block has bytes after its LZMA2 end marker");
      return std::span<const std::uint8_t>();
    }
    CUDAENV_TRY(read_chunk());
  }
  size_t piece = std::min(pending_, ring_size_ - pending_start_);  // a chunk may wrap around the ring's end
  std::span<const std::uint8_t> out(ring_.get() + pending_start_, piece);
  pending_ -= piece;
  pending_start_ = (pending_start_ + piece) % ring_size_;
  return out;
}

// Chunk headers: a control byte, 0x00 the end, 0x01 and 0x02 a stored chunk (0x01 with a
// dictionary reset), 0x80-0xFF an LZMA chunk whose bits 5-6 say what it resets (1 the state,
// 2 also new properties, 3 also the dictionary) and bits 0-4 are the top of its size.
Status Lzma2Decoder::read_chunk() {
  const std::uint8_t* in = data_.data() + read_;
  size_t left = data_.size() - read_;
  if (left == 0) return corrupt("LZMA2 data ends before its end marker");
  unsigned control = in[0];
  if (control == 0x00) {
    ended_ = true;
    ++read_;
    return ok_status();
  }
  if (control < 0x80 && control > 0x02) return corrupt("an LZMA2 chunk has an invalid control byte");
  bool dictionary_reset = control == 0x01 || control >= 0xE0;
  if (!dictionary_reset && need_dictionary_reset_) return corrupt("LZMA2 data does not start with a dictionary reset");
  size_t header = control < 0x80 ? 3 : control >= 0xC0 ? 6 : 5;
  if (left < header) return corrupt("an LZMA2 chunk header is cut short");
  if (dictionary_reset) {
    need_dictionary_reset_ = false;
    need_properties_ = true;
    decoded_ = 0;
  }
  if (control < 0x80) {
    size_t size = ((size_t{in[1]} << 8) | in[2]) + 1;
    read_ += header;
    return copy_stored_chunk(size);
  }
  size_t unpacked = ((size_t{control} & 0x1F) << 16) + ((size_t{in[1]} << 8) | in[2]) + 1;
  size_t packed = ((size_t{in[3]} << 8) | in[4]) + 1;
  if (control >= 0xC0) {
    unsigned properties = in[5];
    if (properties >= 9 * 5 * 5) return corrupt("an LZMA2 chunk has invalid properties");
    model_->lc = properties % 9;
    model_->lp = properties / 9 % 5;
    model_->pb = properties / 45;
    if (model_->lc + model_->lp > 4) return corrupt("an LZMA2 chunk has invalid properties (lc + lp > 4)");
    need_properties_ = false;
  } else if (need_properties_) {
    return corrupt("an LZMA2 chunk lacks the properties it needs");
  }
  if (control >= 0xA0) reset_state();
  read_ += header;
  return decode_lzma_chunk(unpacked, packed);
}

Status Lzma2Decoder::copy_stored_chunk(size_t size) {
  if (data_.size() - read_ < size) return corrupt("an LZMA2 chunk is cut short");
  pending_start_ = pos_;
  pending_ = size;
  for (size_t done = 0; done < size;) {
    size_t step = std::min(size - done, ring_size_ - pos_);
    std::memcpy(ring_.get() + pos_, data_.data() + read_ + done, step);
    done += step;
    pos_ = (pos_ + step) % ring_size_;
  }
  read_ += size;
  decoded_ += size;
  return ok_status();
}

Status Lzma2Decoder::decode_lzma_chunk(size_t unpacked, size_t packed) {
  const std::uint8_t* in = data_.data() + read_;
  if (data_.size() - read_ < packed) return corrupt("an LZMA2 chunk is cut short");
  if (packed < 5 || in[0] != 0) return corrupt("an LZMA chunk does not start as the range coder must");
  RangeDecoder rc{0xFFFFFFFFu, (std::uint32_t{in[1]} << 24) | (std::uint32_t{in[2]} << 16) | (std::uint32_t{in[3]} << 8) | in[4],
                  in, 5, packed};
  if (rc.code == rc.range) return corrupt("an LZMA chunk does not start as the range coder must");
  Model::Probabilities& p = model_->p;
  std::uint8_t* const ring = ring_.get();
  const size_t ring_size = ring_size_;
  const std::uint64_t window = window_;
  const unsigned pb_mask = (1u << model_->pb) - 1, lp_mask = (1u << model_->lp) - 1, lc = model_->lc;
  size_t pos = pos_;
  size_t left = unpacked;
  std::uint64_t decoded = decoded_;
  unsigned state = model_->state;
  std::uint32_t rep0 = model_->reps[0], rep1 = model_->reps[1], rep2 = model_->reps[2], rep3 = model_->reps[3];
  // Where the byte `distance + 1` back lies; `distance` is below the window, so it is in the ring.
  auto back = [&](std::uint32_t distance) { return pos > distance ? pos - distance - 1 : pos + ring_size - distance - 1; };
  bool invalid = false;
  while (left > 0) {
    unsigned position_state = static_cast<unsigned>(decoded) & pb_mask;
    if (!rc.bit(p.is_match[state][position_state])) {
      unsigned previous = decoded ? ring[(pos ? pos : ring_size) - 1] : 0;
      std::uint16_t* coder =
          p.literal + kLiteralCoderSize * (((static_cast<unsigned>(decoded) & lp_mask) << lc) + (previous >> (8 - lc)));
      unsigned symbol = 1;
      // Each bit's two possible successors load while it decodes, off the critical path.
      if (state >= 7) {
        // After a match the literal is coded against the byte at rep0 while their bits agree;
        // `offset` is 0x100 until they differ, then 0.
        unsigned match = static_cast<unsigned>(ring[back(rep0)]) << 1;
        unsigned offset = 0x100;
        unsigned match_bit = match & offset;
        std::uint32_t prob = coder[offset + match_bit + symbol];
        for (int i = 0; i < 8; ++i) {
          unsigned next_match = match << 1;
          unsigned offset0 = offset & ~match_bit, offset1 = offset & match_bit;
          std::uint32_t prob0 = coder[offset0 + (next_match & offset0) + (symbol << 1)];
          std::uint32_t prob1 = coder[offset1 + (next_match & offset1) + (symbol << 1) + 1];
          std::uint32_t mask = rc.bit_mask(coder[offset + match_bit + symbol], prob);
          symbol = (symbol << 1) | (mask & 1);
          offset = (offset1 & mask) | (offset0 & ~mask);
          match = next_match;
          match_bit = match & offset;
          prob = (prob1 & mask) | (prob0 & ~mask);
        }
      } else {
        // The last bit's successors (256-511) lie inside the coder and go unused.
        std::uint32_t prob = coder[1];
        for (int i = 0; i < 8; ++i) {
          std::uint32_t prob0 = coder[symbol << 1], prob1 = coder[(symbol << 1) + 1];
          std::uint32_t mask = rc.bit_mask(coder[symbol], prob);
          symbol = (symbol << 1) | (mask & 1);
          prob = (prob1 & mask) | (prob0 & ~mask);
        }
      }
      ring[pos] = static_cast<std::uint8_t>(symbol);
      if (++pos == ring_size) pos = 0;
      ++decoded;
      --left;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    unsigned length;
    if (!rc.bit(p.is_rep[state])) {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      length = p.length.decode(rc, position_state);
      state = state < 7 ? 7 : 10;
      unsigned slot = rc.tree(p.distance_slot[std::min(length, 3u)], 6);
      if (slot < 4) {
        rep0 = slot;
      } else {
        unsigned bits = (slot >> 1) - 1;
        rep0 = (2u | (slot & 1)) << bits;
        if (slot < kEndSlotModel) {
          rep0 += rc.reverse_tree(p.distance_low + rep0 - slot, bits);
        } else {
          rep0 += rc.direct_bits(bits - kAlignBits) << kAlignBits;
          rep0 += rc.reverse_tree(p.align, kAlignBits);
        }
      }
      // 0xFFFFFFFF, LZMA's end marker, which LZMA2 has no use for, fails the distance check.
    } else if (!rc.bit(p.is_rep_g0[state])) {
      if (!rc.bit(p.is_rep0_long[state][position_state])) {  // one byte from rep0
        state = state < 7 ? 9 : 11;
        if (rep0 >= decoded || rep0 >= window) {
          invalid = true;
          break;
        }
        ring[pos] = ring[back(rep0)];
        if (++pos == ring_size) pos = 0;
        ++decoded;
        --left;
        continue;
      }
      length = p.rep_length.decode(rc, position_state);
      state = state < 7 ? 8 : 11;
    } else {
      std::uint32_t distance;
      if (!rc.bit(p.is_rep_g1[state])) {
        distance = rep1;
      } else {
        if (!rc.bit(p.is_rep_g2[state])) {
          distance = rep2;
        } else {
          distance = rep3;
          rep3 = rep2;
        }
        rep2 = rep1;
      }
      rep1 = rep0;
      rep0 = distance;
      length = p.rep_length.decode(rc, position_state);
      state = state < 7 ? 8 : 11;
    }
    length += kMatchMinLength;
    // A match reaches no further back than what this dictionary decoded, nor past the chunk.
    if (rep0 >= decoded || rep0 >= window || length > left) {
      invalid = true;
      break;
    }
    size_t from = back(rep0);
    if (from + length <= ring_size && pos + length <= ring_size) {
      std::uint8_t* to = ring + pos;
      const std::uint8_t* source = ring + from;
      if (rep0 + 1 >= length) {
        std::memcpy(to, source, length);
      } else {  // overlapping: repeats the last rep0 + 1 bytes
        for (unsigned i = 0; i < length; ++i) to[i] = source[i];
      }
      pos += length;
      if (pos == ring_size) pos = 0;
    } else {
      for (unsigned i = 0; i < length; ++i) {
        ring[pos] = ring[from];
        if (++pos == ring_size) pos = 0;
        if (++from == ring_size) from = 0;
      }
    }
    decoded += length;
    left -= length;
  }
  if (invalid) return corrupt("an LZMA match reaches before the start of the data or past its chunk");
  rc.normalize();  // the encoder's flush ends where the last bit's normalization would read
  if (rc.code != 0 || rc.at != packed) return corrupt("an LZMA chunk does not end where its header says");
  pending_start_ = pos_;
  pending_ = unpacked;
  pos_ = pos;
  decoded_ = decoded;
  model_->state = state;
  model_->reps[0] = rep0;
  model_->reps[1] = rep1;
  model_->reps[2] = rep2;
  model_->reps[3] = rep3;
  read_ += packed;
  return ok_status();
}

}  // namespace cudaenv
