import Foundation
import Testing
import VideoCore

/// PNG snapshots: the file is parsed back here (chunks, CRC-32, zlib stored blocks, Adler-32)
/// and its pixels checked against BT.601, and ffprobe reads it.
@Suite struct PNGEncoderTests {
    /// A minimal PNG reader for stored-block files: width, height and the RGB bytes.
    static func decode(_ png: [UInt8]) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var offset = 8, width = 0, height = 0, idat: [UInt8] = [], types: [String] = []
        func u32(_ at: Int) -> Int { Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3]) }
        while offset + 12 <= png.count {
            let length = u32(offset), type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let data = Array(png[(offset + 8)..<(offset + 8 + length)])
            #expect(UInt32(u32(offset + 8 + length)) == crc32(Array(png[(offset + 4)..<(offset + 8 + length)])), "CRC of \(type)")
            types.append(type)
            if type == "IHDR" {
                width = Int(data[0]) << 24 | Int(data[1]) << 16 | Int(data[2]) << 8 | Int(data[3])
                height = Int(data[4]) << 24 | Int(data[5]) << 16 | Int(data[6]) << 8 | Int(data[7])
                #expect(Array(data[8...]) == [8, 2, 0, 0, 0])
            }
            if type == "IDAT" { idat += data }
            offset += 12 + length
        }
        #expect(types == ["IHDR", "IDAT", "IEND"] && offset == png.count)
        // zlib: header, stored blocks (BFINAL on the last), Adler-32.
        #expect(idat[0] == 0x78 && (Int(idat[0]) << 8 | Int(idat[1])) % 31 == 0)
        var at = 2, raw: [UInt8] = [], final = false
        while !final {
            final = idat[at] & 1 == 1
            #expect(idat[at] & 0x06 == 0, "stored block")
            let length = Int(idat[at + 1]) | Int(idat[at + 2]) << 8
            #expect(length ^ 0xFFFF == Int(idat[at + 3]) | Int(idat[at + 4]) << 8)
            raw += idat[(at + 5)..<(at + 5 + length)]
            at += 5 + length
        }
        var a = 1, b = 0
        for byte in raw { a = (a + Int(byte)) % 65_521; b = (b + a) % 65_521 }
        #expect(Array(idat[at...]) == [UInt8(b >> 8), UInt8(b & 0xFF), UInt8(a >> 8), UInt8(a & 0xFF)])
        var rgb: [UInt8] = []
        for row in 0..<height {
            let start = row * (width * 3 + 1)
            #expect(raw[start] == 0, "filter None")
            rgb += raw[(start + 1)...(start + width * 3)]
        }
        return (width, height, rgb)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }

    @Test func pixelsFollowBT601VideoRange() throws {
        // 4×2: white, black, red, blue on the top row (chroma per 2×2 block).
        let frame = try #require(I420Frame(width: 4, height: 2, y: [235, 235, 81, 81, 16, 16, 41, 41], u: [128, 90], v: [128, 240]))
        var encoder = PNGEncoder()
        let (width, height, rgb) = try Self.decode(encoder.encode(frame))
        #expect(width == 4 && height == 2)
        #expect(Array(rgb[0..<3]) == [255, 255, 255], "Y 235 is white")
        #expect(Array(rgb[12..<15]) == [0, 0, 0], "Y 16 is black")
        let red = Array(rgb[6..<9])
        #expect(red[0] > 250 && red[1] < 5 && red[2] < 5, "BT.601 red: \(red)")
    }

    @Test func aFrameLargerThanOneStoredBlockAndFFprobe() throws {
        var pattern = TestPattern(width: 320, height: 240)
        let frame = pattern.next()
        let sink = PNGSnapshotSink()
        #expect(sink.snapshot() == nil)
        try sink.write(frame)
        let png = try #require(sink.snapshot())
        let (width, height, rgb) = try Self.decode(png)
        #expect(width == 320 && height == 240 && rgb.count == 320 * 240 * 3)
        let barRow = (pattern.bandTop + 5) * 320
        #expect(Array(rgb[(barRow * 3)..<(barRow * 3 + 3)]) == [255, 255, 255], "the moving bar is white")
        #expect(Array(rgb[((barRow + 100) * 3)..<((barRow + 100) * 3 + 3)]) == [0, 0, 0], "the band is black")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vc-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try sink.writeSnapshot(to: path))
        let probe = try FFprobe.run(path, "stream=codec_name,width,height,pix_fmt")
        #expect(probe.contains("codec_name=png") && probe.contains("width=320") && probe.contains("height=240"), "\(probe)")
        #expect(probe.contains("pix_fmt=rgb24"), "\(probe)")
    }
}
