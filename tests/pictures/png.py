"""png.py: what t170-pictures needs to know of a screenshot, read with
Python's standard library alone (zlib, struct).

    png.py FILE size
        prints "W H", the image's width and height
    png.py FILE ink [X0 Y0 X1 Y1]
        prints "W H INK X0 Y0 X1 Y1 COLOUR": the pixels of the region
        (the whole image by default; X1, Y1 exclusive) that are not white
        (INK: some channel below 245) and their bounding box (inclusive;
        -1s when there are none), and how many are coloured (COLOUR: the
        channels more than 40 apart, as no grey of text or frame is)

Reads 8-bit greyscale, RGB, palette, grey+alpha and RGBA images, not
interlaced: what Chromium writes. Transparent pixels count as white.
Exits 2 with a message for anything else.
"""
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def fail(msg):
    sys.stderr.write("png.py: %s\n" % msg)
    sys.exit(2)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read(path):
    """Return (width, height, rows): rows a list of lists of (r, g, b)."""
    with open(path, "rb") as f:
        return decode(f.read(), path)


def decode(data, path="the image"):
    """read's answer for the bytes DATA of a PNG file (named PATH)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG file" % path)
    pos, idat, palette, trns = 8, [], None, None
    width = height = depth = ctype = interlace = None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if width is None:
        fail("%s: no IHDR chunk" % path)
    if depth != 8 or ctype not in CHANNELS or interlace != 0:
        fail("%s: depth %s, colour type %s, interlace %s: not read here" % (path, depth, ctype, interlace))
    bpp = CHANNELS[ctype]
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    if len(raw) != height * (stride + 1):
        fail("%s: %d bytes of image data, expected %d" % (path, len(raw), height * (stride + 1)))
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ftype == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ftype == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                upleft = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + paeth(left, prev[i], upleft)) & 255
        elif ftype != 0:
            fail("%s: bad filter type %d in row %d" % (path, ftype, y))
        rows.append(pixels(line, width, ctype, palette, trns))
        prev = line
    return width, height, rows


def pixels(line, width, ctype, palette, trns):
    """The (r, g, b) of each pixel of a defiltered row, over white."""
    out = []
    for x in range(width):
        if ctype == 0:
            v = line[x]
            out.append((v, v, v))
        elif ctype == 2:
            out.append(tuple(line[3 * x:3 * x + 3]))
        elif ctype == 3:
            i = line[x]
            if palette is None or i >= len(palette):
                fail("palette index %d out of range" % i)
            a = trns[i] if trns is not None and i < len(trns) else 255
            out.append(over_white(palette[i], a))
        elif ctype == 4:
            v, a = line[2 * x], line[2 * x + 1]
            out.append(over_white((v, v, v), a))
        else:
            out.append(over_white(line[4 * x:4 * x + 3], line[4 * x + 3]))
    return out


def over_white(rgb, a):
    return tuple((c * a + 255 * (255 - a)) // 255 for c in rgb)


def ink(rows, x0, y0, x1, y1):
    n = colour = 0
    bx0 = by0 = bx1 = by1 = -1
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            r, g, b = row[x]
            if min(r, g, b) < 245:
                n += 1
                if bx0 < 0 or x < bx0:
                    bx0 = x
                if x > bx1:
                    bx1 = x
                if by0 < 0:
                    by0 = y
                by1 = y
                if max(r, g, b) - min(r, g, b) > 40:
                    colour += 1
    return n, bx0, by0, bx1, by1, colour


def main(argv):
    if len(argv) < 3 or argv[2] not in ("size", "ink"):
        fail("usage: png.py FILE size | png.py FILE ink [X0 Y0 X1 Y1]")
    width, height, rows = read(argv[1])
    if argv[2] == "size":
        print(width, height)
        return
    x0, y0, x1, y1 = 0, 0, width, height
    if len(argv) == 7:
        x0, y0, x1, y1 = (int(v) for v in argv[3:7])
        x1, y1 = min(x1, width), min(y1, height)
    print(width, height, *ink(rows, x0, y0, x1, y1))


if __name__ == "__main__":
    main(sys.argv)
