#!/usr/bin/env python3
"""Damaged and hostile archives, made from good ones by editing their structure.

    hostile_archives.py xz MUTATION IN.xz OUT.xz
        flip-check      a byte of the last block's integrity check (CRC32, CRC64 or SHA-256)
        flip-stored     a byte inside an LZMA2 stored chunk: only the check can tell
        garbage-block   a second "stream" of garbage after the first
        trailing        bytes after the stream (no padding, no stream)
        after-end       bytes after the first block's LZMA2 end marker, the index made to count them
        index-size      the index claims 1 GiB for the first block (its CRC32 made to match)
    hostile_archives.py stored IN OUT.xz
        IN as one xz block of LZMA2 stored chunks only (CRC32 check), as xz stores data it cannot
        shrink: small files to damage with flip-stored
    hostile_archives.py tar MUTATION IN.tar OUT.tar
        hidden          a member after the end-of-archive blocks, which tar never unpacks
        trailing        nonzero bytes after the end-of-archive blocks
    hostile_archives.py wheel MUTATION IN.whl OUT.whl MEMBER [ARG]
        rename          MEMBER's local header names it ARG (the central directory keeps MEMBER)
        declare-size    MEMBER declares ARG bytes in both tables, its data unchanged
        flip-crc        MEMBER's CRC-32 flipped in both tables
        hide            MEMBER left out of the central directory
        trailing        bytes after the end record
        prefix          bytes before the first member (offsets shifted, as a self-extracting zip)
"""
import struct
import sys
import zlib

XZ_MAGIC = b"\xfd7zXZ\x00"
CHECK_SIZES = {0: 0, 1: 4, 4: 8, 10: 32}


def varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7


def encode_varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def pad4(size):
    return (4 - size % 4) % 4


class Xz:
    """One xz stream: header, blocks (header, data, padding, check) and index, as offsets."""

    def __init__(self, data):
        if not data.startswith(XZ_MAGIC):
            sys.exit("hostile_archives: not an xz file")
        self.data = bytearray(data)
        self.check_size = CHECK_SIZES[data[7] & 0x0F]
        backward = (struct.unpack_from("<I", data, len(data) - 8)[0] + 1) * 4
        self.index_at = len(data) - 12 - backward
        count, at = varint(data, self.index_at + 1)
        self.records, self.blocks = [], []
        block_at = 12
        for _ in range(count):
            unpadded, at = varint(data, at)
            uncompressed, at = varint(data, at)
            self.records.append([unpadded, uncompressed])
            header_size = (data[block_at] + 1) * 4
            self.blocks.append({"at": block_at, "header": header_size,
                                "data": unpadded - header_size - self.check_size})
            block_at += unpadded + pad4(unpadded)

    def block_end_of_data(self, block):
        return block["at"] + block["header"] + block["data"]

    def rewrite_index(self):
        """The index and footer again, from self.records (CRC32s made to match)."""
        index = bytearray(b"\x00") + encode_varint(len(self.records))
        for unpadded, uncompressed in self.records:
            index += encode_varint(unpadded) + encode_varint(uncompressed)
        index += b"\x00" * pad4(len(index))
        index += struct.pack("<I", zlib.crc32(index))
        flags = self.data[6:8]
        backward = struct.pack("<I", len(index) // 4 - 1)
        footer = struct.pack("<I", zlib.crc32(backward + flags)) + backward + flags + b"YZ"
        self.data[self.index_at:] = index + footer


def mutate_xz(mutation, data):
    xz = Xz(data)
    first, last = xz.blocks[0], xz.blocks[-1]
    if mutation == "flip-check":
        if not xz.check_size:
            sys.exit("hostile_archives: the stream has no check to flip")
        check_at = xz.block_end_of_data(last) + pad4(last["header"] + last["data"])
        xz.data[check_at] ^= 0x01
    elif mutation == "flip-stored":
        # The first stored chunk (control byte 1 or 2, then a 16-bit size less one): a byte in
        # its middle. The data must be incompressible enough for LZMA2 to store it.
        at = first["at"] + first["header"]
        while True:
            control = xz.data[at]
            if control in (1, 2):
                size = struct.unpack(">H", xz.data[at + 1:at + 3])[0] + 1
                xz.data[at + 3 + size // 2] ^= 0x01
                break
            if control < 0x80:
                sys.exit("hostile_archives: no stored chunk before the end of the block")
            packed = struct.unpack(">H", xz.data[at + 3:at + 5])[0] + 1
            at += 5 + (1 if control >= 0xC0 else 0) + packed
    elif mutation == "garbage-block":
        xz.data += b"\x00" * 4 + b"\x5a" * 4096  # stream padding, then no stream header
    elif mutation == "trailing":
        xz.data += b"cudaenv"
    elif mutation == "after-end":
        end = xz.block_end_of_data(first)
        xz.data[end:end] = b"\x01\x00\x00\x07hidden!"  # padding stays 4-aligned: 12 bytes
        xz.records[0][0] += 12
        xz.index_at += 12
        xz.rewrite_index()
    elif mutation == "index-size":
        xz.records[0][1] = 1 << 30
        xz.rewrite_index()
    else:
        sys.exit(f"hostile_archives: unknown xz mutation {mutation}")
    return bytes(xz.data)


def stored_xz(data):
    flags = b"\x00\x01"  # CRC32
    header = XZ_MAGIC + flags + struct.pack("<I", zlib.crc32(flags))
    block_header = bytearray(b"\x02\x00\x21\x01\x16\x00\x00\x00")  # LZMA2, 8 MiB dictionary
    block_header += struct.pack("<I", zlib.crc32(block_header))
    chunks = bytearray()
    for at in range(0, len(data), 65536):
        piece = data[at:at + 65536]
        chunks += bytes([1 if at == 0 else 2]) + struct.pack(">H", len(piece) - 1) + piece
    chunks += b"\x00"
    block = block_header + chunks + b"\x00" * pad4(len(block_header) + len(chunks)) + struct.pack("<I", zlib.crc32(data))
    xz = Xz.__new__(Xz)
    xz.data = bytearray(header + block)
    xz.index_at = len(xz.data)
    xz.records = [[len(block_header) + len(chunks) + 4, len(data)]]
    xz.rewrite_index()
    return bytes(xz.data)


def mutate_tar(mutation, data):
    end = len(data.rstrip(b"\x00"))
    end += (512 - end % 512) % 512  # the end of the last member's data
    if mutation == "hidden":
        # A whole member placed after two zero blocks: `tar -t` stops before it.
        member = data[:end]
        return member + b"\x00" * 1024 + member + b"\x00" * 1024
    if mutation == "trailing":
        return data + b"cudaenv trailing bytes"
    sys.exit(f"hostile_archives: unknown tar mutation {mutation}")


def zip_records(data):
    """(local header offsets, central entries (offset, fields), end record offset)"""
    end_at = data.rindex(b"PK\x05\x06")
    directory_size, directory_at = struct.unpack_from("<II", data, end_at + 12)
    entries, at = [], directory_at
    while at < directory_at + directory_size:
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", data, at + 28)
        local_at = struct.unpack_from("<I", data, at + 42)[0]
        name = bytes(data[at + 46:at + 46 + name_length])
        entries.append({"at": at, "local": local_at, "name": name,
                        "size": 46 + name_length + extra_length + comment_length})
        at += 46 + name_length + extra_length + comment_length
    return entries, directory_at, end_at


def mutate_wheel(mutation, data, member, argument):
    data = bytearray(data)
    entries, directory_at, end_at = zip_records(data)
    target = next((entry for entry in entries if entry["name"] == member.encode()), None)
    if target is None and mutation not in ("trailing", "prefix"):
        sys.exit(f"hostile_archives: no member {member}")
    if mutation == "rename":
        # Same length, so no offset moves: the central directory and pip see MEMBER.
        new = argument.encode()
        if len(new) != len(target["name"]):
            sys.exit("hostile_archives: rename needs a name of the same length")
        local = target["local"]
        data[local + 30:local + 30 + len(new)] = new
    elif mutation == "declare-size":
        # Both tables give the declared size (at most 4 GiB less one); the data stays as it is.
        for at in (target["local"] + 22, target["at"] + 24):
            struct.pack_into("<I", data, at, int(argument))
    elif mutation == "flip-crc":
        for at in (target["local"] + 14, target["at"] + 16):
            data[at] ^= 0x01
    elif mutation == "hide":
        size = target["size"]
        del data[target["at"]:target["at"] + size]
        end_at -= size
        count = struct.unpack_from("<H", data, end_at + 8)[0] - 1
        struct.pack_into("<HHI", data, end_at + 8, count, count, struct.unpack_from("<I", data, end_at + 12)[0] - size)
    elif mutation == "trailing":
        data += b"cudaenv trailing bytes"
    elif mutation == "prefix":
        data[0:0] = b"#!/bin/sh\nexit 0\n"
    else:
        sys.exit(f"hostile_archives: unknown wheel mutation {mutation}")
    return bytes(data)


def main(argv):
    kind = argv[1]
    if kind == "stored":
        source, out = argv[2:4]
        open(out, "wb").write(stored_xz(open(source, "rb").read()))
        return
    mutation, source, out = argv[2:5]
    rest = argv[5:]
    data = open(source, "rb").read()
    if kind == "xz":
        result = mutate_xz(mutation, data)
    elif kind == "tar":
        result = mutate_tar(mutation, data)
    elif kind == "wheel":
        result = mutate_wheel(mutation, data, rest[0] if rest else "", rest[1] if len(rest) > 1 else "")
    else:
        sys.exit(f"hostile_archives: unknown kind {kind}")
    open(out, "wb").write(result)


if __name__ == "__main__":
    main(sys.argv)
