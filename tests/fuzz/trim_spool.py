#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut a spool file down to its header and the first records (a small seed).

    trim_spool.py IN OUT MAX_BYTES [--raw]

Records are copied whole ({u16 type, u16 size, u32 flags} headers) until
MAX_BYTES of records; --raw writes the records only (no spool header),
for the raw record stream target.
"""
import struct
import sys


def main():
    src, dst, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    raw = "--raw" in sys.argv[4:]
    with open(src, "rb") as f:
        head = f.read(4096)
        if head[:8] != b"KPROFSPL":
            sys.exit(f"{src}: not a spool file")
        hdr_size = struct.unpack_from("<I", head, 16)[0]
        f.seek(hdr_size)
        out = bytearray()
        while len(out) < limit:
            rh = f.read(8)
            if len(rh) < 8:
                break
            size = struct.unpack_from("<H", rh, 2)[0]
            if size < 8 or size % 8:
                break
            body = f.read(size - 8)
            if len(out) + size > limit:
                break
            out += rh + body
        f.seek(0)
        hdr = f.read(hdr_size)
    with open(dst, "wb") as f:
        if not raw:
            f.write(hdr)
        f.write(out)


if __name__ == "__main__":
    main()
