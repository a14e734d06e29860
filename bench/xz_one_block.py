#!/usr/bin/env python3
"""xz_one_block.py IN.xz > OUT.xz: a multi-block .xz (one stream, LZMA2 alone, as `xz -T2` writes)
rewritten as one block without sizes in its header, as `xz -T1` writes, in seconds instead of
recompressing: no decoder can split it across cores. Every block's LZMA2 data starts with a
dictionary reset, so their chunks joined are one valid LZMA2 stream. The layout follows "The .xz
File Format" 1.1.0 (tukaani.org); the check is CRC32 of the uncompressed data."""
import lzma
import struct
import sys
import zlib


def varint(data, pos):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def encode_varint(value):
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def pad4(data):
    return data + b"\0" * (-len(data) % 4)


def crc32_of_content(data):
    crc, decoder = 0, lzma.LZMADecompressor()
    for start in range(0, len(data), 1 << 20):
        crc = zlib.crc32(decoder.decompress(data[start:start + (1 << 20)]), crc)
    return crc


def one_block(data):
    if data[:6] != b"\xfd7zXZ\0" or data[-2:] != b"YZ":
        sys.exit("xz_one_block: not a .xz file")
    check_size = {0: 0, 1: 4, 4: 8, 10: 32}[data[7] & 0x0F]
    index_size = (struct.unpack("<I", data[-8:-4])[0] + 1) * 4
    index = data[len(data) - 12 - index_size:len(data) - 12]
    count, pos = varint(index, 1)
    blocks = []
    for _ in range(count):
        unpadded, pos = varint(index, pos)
        uncompressed, pos = varint(index, pos)
        blocks.append((unpadded, uncompressed))
    if 12 + sum(u + (-u % 4) for u, _ in blocks) + index_size + 12 != len(data):
        sys.exit("xz_one_block: more than one stream")
    offset, lzma2, props = 12, bytearray(), None
    for unpadded, _ in blocks:
        header_size = (data[offset] + 1) * 4
        flags = data[offset + 1]
        pos = offset + 2
        for present in (0x40, 0x80):  # compressed, uncompressed size
            if flags & present:
                _, pos = varint(data, pos)
        if flags & 0x03 or data[pos] != 0x21 or data[pos + 1] != 1:
            sys.exit("xz_one_block: a block has other filters than LZMA2")
        props = data[pos + 2]
        compressed = data[offset + header_size:offset + unpadded - check_size]
        lzma2 += compressed[:-1]  # without its end marker
        offset += unpadded + (-unpadded % 4)
    lzma2.append(0)
    header = bytes([2, 0, 0x21, 1, props, 0, 0, 0])
    header += struct.pack("<I", zlib.crc32(header))
    stream_flags = b"\0\x01"  # CRC32
    out = bytearray(b"\xfd7zXZ\0" + stream_flags + struct.pack("<I", zlib.crc32(stream_flags)))
    out += pad4(header + bytes(lzma2)) + struct.pack("<I", crc32_of_content(data))
    record = encode_varint(len(header) + len(lzma2) + 4) + encode_varint(sum(u for _, u in blocks))
    index = pad4(b"\0" + encode_varint(1) + record)
    index += struct.pack("<I", zlib.crc32(index))
    tail = struct.pack("<I", len(index) // 4 - 1) + stream_flags
    out += index + struct.pack("<I", zlib.crc32(tail)) + tail + b"YZ"
    return bytes(out)


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as archive:
        sys.stdout.buffer.write(one_block(archive.read()))
