import Testing
import VP8

/// RFC 7741 §4.2 descriptors built bit by bit from the figure, each parsed, serialized back, and
/// cut short at every byte.
@Suite struct VP8PayloadDescriptorTests {
    /// The packet path's reader (RFC 7741 §4.2, §4.3) on what the fuzzer found: X announcing an
    /// extension byte with no field in it (fuzz/regressions/vp8/x-with-empty-extension-byte).
    @Test func theInPlaceReaderCountsAnEmptyExtensionByte() throws {
        let bytes: [UInt8] = [0x90, 0x00, 0x00, 0x80, 0x7F, 0x00]
        let fields = try #require(bytes.withUnsafeBytes { VP8PayloadDescriptor.fields(of: $0) })
        #expect(fields.length == 2 && fields.pictureID == nil && fields.startsFrame)
        #expect(fields.startsKeyFrame, "the VP8 payload header's P bit (0x00) is 0: a key frame")
        let descriptor = try VP8PayloadDescriptor(parsing: bytes[...])
        #expect(descriptor.serializedSize == 1, "the serializer leaves the empty extension byte out")
        let key: [UInt8] = [0x90, 0x80, 0x81, 0x23, 0x10], delta: [UInt8] = [0x90, 0x80, 0x81, 0x23, 0x11]
        #expect(key.withUnsafeBytes { VP8PayloadDescriptor.fields(of: $0) }?.startsKeyFrame == true)
        #expect(delta.withUnsafeBytes { VP8PayloadDescriptor.fields(of: $0) }?.startsKeyFrame == false)
        #expect(key.withUnsafeBytes { VP8PayloadDescriptor.fields(of: $0) }?.pictureID == 0x0123)
        let truncated: [UInt8] = [0x90, 0x80, 0x81]
        #expect(truncated.withUnsafeBytes { VP8PayloadDescriptor.fields(of: $0) } == nil)
    }

    @Test func theShortestDescriptorIsOneByte() throws {
        let d = try VP8PayloadDescriptor(parsing: [0x10, 0x9D])
        #expect(d.isStartOfPartition && d.partitionIndex == 0 && d.startsFrame)
        #expect(d.pictureID == nil && d.tl0PictureIndex == nil && d.temporalLayer == nil && d.keyIndex == nil)
        #expect(d.serializedSize == 1)
    }

    @Test func everyOptionalField() throws {
        // X N S PID=2 | I L T K | M + PictureID 0x1234 | TL0PICIDX 0x56 | TID=2 Y=1 KEYIDX=10
        let bytes: [UInt8] = [0xB2, 0xF0, 0x92, 0x34, 0x56, 0xAA, 0xFF]
        let d = try VP8PayloadDescriptor(parsing: bytes[...])
        #expect(d.isNonReference && d.isStartOfPartition && d.partitionIndex == 2 && !d.startsFrame)
        #expect(d.pictureID == 0x1234 && d.hasLongPictureID)
        #expect(d.tl0PictureIndex == 0x56)
        #expect(d.temporalLayer == 2 && d.isLayerSync && d.keyIndex == 10)
        #expect(d.serializedSize == 6)
        var out: [UInt8] = []
        d.serialize(into: &out)
        #expect(out == Array(bytes.prefix(6)))
        for cut in 1..<6 {
            #expect(throws: VP8ParseError.self) { _ = try VP8PayloadDescriptor(parsing: bytes.prefix(cut)) }
        }
    }

    @Test func aSevenBitPictureIDStaysSevenBits() throws {
        let d = try VP8PayloadDescriptor(parsing: [0x90, 0x80, 0x7F])
        #expect(d.pictureID == 127 && !d.hasLongPictureID && d.serializedSize == 3)
        var wider = d
        wider.pictureID = 128  // does not fit 7 bits: written in 15
        var out: [UInt8] = []
        wider.serialize(into: &out)
        #expect(out == [0x90, 0x80, 0x80, 0x80])
    }

    @Test func onlyTheKeyIndex() throws {
        let d = try VP8PayloadDescriptor(parsing: [0x90, 0x10, 0x1F])
        #expect(d.keyIndex == 31 && d.temporalLayer == nil && d.serializedSize == 3)
    }

    @Test func rewritingInPlaceKeepsTheLength() throws {
        var packet: [UInt8] = [0xAA, 0xBB, 0x90, 0xC0, 0x81, 0x00, 0x07, 0x9D]  // two bytes before it
        try VP8PayloadDescriptor.rewrite(&packet, at: 2, pictureID: 0x0345, tl0PictureIndex: 9)
        #expect(packet == [0xAA, 0xBB, 0x90, 0xC0, 0x83, 0x45, 0x09, 0x9D])
        var short: [UInt8] = [0x90, 0x80, 0x05]
        try VP8PayloadDescriptor.rewrite(&short, at: 0, pictureID: 200, tl0PictureIndex: 1)
        #expect(short == [0x90, 0x80, 200 & 0x7F], "a 7-bit picture ID wraps at 128; there is no TL0PICIDX to write")
        var cut: [UInt8] = [0x90, 0xC0, 0x81]
        #expect(throws: VP8ParseError.truncated(.pictureID)) {
            try VP8PayloadDescriptor.rewrite(&cut, at: 0, pictureID: 1, tl0PictureIndex: nil)
        }
    }
}

/// RFC 6386 §9.1 frame headers.
@Suite struct VP8FrameHeaderTests {
    /// A key frame of 640×480: first partition 0x1234 bytes, shown, version 0.
    static let keyFrame: [UInt8] = [0x90, 0x46, 0x02, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01, 0x00]

    @Test func aKeyFrameAndItsSize() throws {
        let header = try VP8FrameHeader(parsing: Self.keyFrame[...])
        #expect(header.isKeyFrame && header.isShown && header.version == 0)
        #expect(header.firstPartitionSize == 0x1234)
        #expect(header.width == 640 && header.height == 480 && header.horizontalScale == 0 && header.verticalScale == 0)
        #expect(try VP8FrameHeader.inPayload([0x10] + Self.keyFrame)?.width == 640)
        #expect(try VP8FrameHeader.inPayload([0x00] + Self.keyFrame) == nil, "a continuation packet starts no frame")
        for cut in 1..<10 {
            #expect(throws: VP8ParseError.self) { _ = try VP8FrameHeader(parsing: Self.keyFrame.prefix(cut)) }
        }
    }

    @Test func anInterFrameHasNoStartCode() throws {
        let header = try VP8FrameHeader(parsing: [0x91, 0x00, 0x00])
        #expect(!header.isKeyFrame && header.width == nil)
        var bad = Self.keyFrame
        bad[4] = 0x00
        #expect(throws: VP8ParseError.badStartCode) { _ = try VP8FrameHeader(parsing: bad[...]) }
    }
}
