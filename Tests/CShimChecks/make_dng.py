#!/usr/bin/env python3
"""Writes DNG files for scripts/check-c.sh: RGGB mosaics of odd and even sizes and orientations, and damaged copies
(cut short, bit flips, zeroed tag counts) that LibRaw must refuse or develop without memory errors.

    make_dng.py FOLDER"""
import os, random, struct, sys

def dng(width, height, orientation=1, bits=16, seed=0):
    rng = random.Random(seed)
    samples = b"".join(struct.pack("<H", rng.randrange(0, 1 << bits)) for _ in range(width * height))
    xyz_to_srgb = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
    srational = lambda v: struct.pack("<ii", int(round(v * 10000)), 10000)
    entries = [
        (254, 4, 1, struct.pack("<I", 0)), (256, 4, 1, struct.pack("<I", width)), (257, 4, 1, struct.pack("<I", height)),
        (258, 3, 1, struct.pack("<H", 16)), (259, 3, 1, struct.pack("<H", 1)), (262, 3, 1, struct.pack("<H", 32803)),
        (271, 2, 6, b"Check\0"), (272, 2, 4, b"DNG\0"), (273, 4, 1, b"STRP"), (274, 3, 1, struct.pack("<H", orientation)),
        (277, 3, 1, struct.pack("<H", 1)), (278, 4, 1, struct.pack("<I", height)), (279, 4, 1, struct.pack("<I", len(samples))),
        (284, 3, 1, struct.pack("<H", 1)), (33421, 3, 2, struct.pack("<HH", 2, 2)), (33422, 1, 4, bytes([0, 1, 1, 2])),
        (50706, 1, 4, bytes([1, 4, 0, 0])), (50708, 2, 10, b"Check DNG\0"), (50717, 4, 1, struct.pack("<I", (1 << bits) - 1)),
        (50721, 10, 9, b"".join(srational(v) for v in xyz_to_srgb)), (50728, 5, 3, struct.pack("<IIIIII", 1, 1, 1, 1, 1, 1)),
        (50778, 3, 1, struct.pack("<H", 21)),
    ]
    extra_start = 8 + 2 + 12 * len(entries) + 4
    extra, offsets = b"", {}
    for i, (_, _, _, value) in enumerate(entries):
        if len(value) > 4:
            offsets[i] = extra_start + len(extra)
            extra += value + (b"\0" if len(value) % 2 else b"")
    strip = extra_start + len(extra)
    out = b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(entries))
    for i, (tag, kind, count, value) in enumerate(entries):
        if tag == 273:
            value = struct.pack("<I", strip)
        field = struct.pack("<I", offsets[i]) if i in offsets else value.ljust(4, b"\0")
        out += struct.pack("<HHI", tag, kind, count) + field
    return out + struct.pack("<I", 0) + extra + samples

def main(folder):
    os.makedirs(os.path.join(folder, "damaged"), exist_ok=True)
    good = {"rggb_64x48.dng": dng(64, 48), "odd_33x25_turned.dng": dng(33, 25, orientation=6, seed=1),
            "narrow_24x130.dng": dng(24, 130, seed=2), "12bit_130x66.dng": dng(130, 66, orientation=3, bits=12, seed=3)}
    for name, data in good.items():
        open(os.path.join(folder, name), "wb").write(data)
    rng = random.Random(7)
    whole = good["rggb_64x48.dng"]
    damaged = {"cut_16.dng": whole[:16], "cut_ifd.dng": whole[:200], "cut_half.dng": whole[: len(whole) // 2]}
    for i in range(24):
        data = bytearray(whole)
        for _ in range(rng.randrange(1, 6)):
            position = rng.randrange(0, min(len(data), 400))
            data[position] ^= 1 << rng.randrange(8)
        damaged["flip_%02d.dng" % i] = bytes(data)
    for name, data in damaged.items():
        open(os.path.join(folder, "damaged", name), "wb").write(data)

if __name__ == "__main__":
    main(sys.argv[1])
