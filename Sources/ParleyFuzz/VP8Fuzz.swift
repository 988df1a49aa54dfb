import VP8

/// Feeds bytes to the VP8 payload descriptor and frame header parsers: a descriptor that parses
/// must serialize back to the bytes it was read from (the one exception: the serializer always
/// writes a 7-bit picture ID in 7 bits, which is what was read), and an in-place rewrite must keep
/// the payload's length and reparse to the values written.
enum VP8Fuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        depacketize(bytes)
        let inPlace = VP8PayloadDescriptor.fields(of: data)
        guard let descriptor = try? VP8PayloadDescriptor(parsing: bytes[...]) else {
            precondition(inPlace == nil, "the in-place reader takes what the parser refuses")
            return
        }
        // The packet path's reader and rewriter agree with the parser and its rewrite.
        // The read length is the serialized one, or one more when X announced an empty extension
        // byte (the serializer leaves such a byte out).
        precondition(inPlace?.pictureID == descriptor.pictureID && inPlace?.tl0PictureIndex == descriptor.tl0PictureIndex
                     && inPlace?.startsFrame == descriptor.startsFrame
                     && (inPlace?.length == descriptor.serializedSize
                         || (inPlace?.length == descriptor.serializedSize + 1 && bytes[0] & 0x80 != 0 && bytes[1] & 0xF0 == 0)),
                     "the in-place reader disagrees with the parser")
        if let inPlace {
            precondition(inPlace.startsKeyFrame == (inPlace.startsFrame && inPlace.length < bytes.count
                                                    && bytes[inPlace.length] & 0x01 == 0), "key frame flag misread")
        }
        var inPlaceRewritten = bytes
        let wrote = inPlaceRewritten.withUnsafeMutableBytes {
            VP8PayloadDescriptor.rewrite($0, pictureID: descriptor.hasLongPictureID ? 0x7ABC : 0x55, tl0PictureIndex: 0xA5)
        }
        precondition(wrote, "the in-place rewriter refuses a parsed descriptor")
        let size = descriptor.serializedSize
        precondition(size >= 1 && size <= bytes.count, "VP8 descriptor size out of range")
        var out: [UInt8] = []
        descriptor.serialize(into: &out)
        precondition(out.count == size, "VP8 descriptor serialized to another size")
        let reparsed = try? VP8PayloadDescriptor(parsing: out[...])
        precondition(reparsed == descriptor, "VP8 descriptor does not round-trip")
        let header = try? VP8FrameHeader.inPayload(bytes[...])
        // The packet path's key frame size reader agrees with the frame header parser.
        if let inPlace, inPlace.startsFrame, inPlace.length == descriptor.serializedSize {
            let read = VP8FrameHeader.keyFrameSize(in: UnsafeRawBufferPointer(rebasing: data[inPlace.length...]))
            let parsed = header.flatMap { $0.isKeyFrame ? ($0.width, $0.height) : nil }
            precondition(read?.width == parsed?.0 && read?.height == parsed?.1, "the key frame size reader disagrees")
        }

        var rewritten = bytes
        let pictureID: UInt16 = descriptor.hasLongPictureID ? 0x7ABC : 0x55
        guard (try? VP8PayloadDescriptor.rewrite(&rewritten, at: 0, pictureID: pictureID, tl0PictureIndex: 0xA5)) != nil else {
            preconditionFailure("a parsed descriptor must be rewritable")
        }
        precondition(rewritten.count == bytes.count, "rewrite changed the payload length")
        precondition(rewritten == inPlaceRewritten, "the in-place rewrite differs from the parser's")
        let after = try? VP8PayloadDescriptor(parsing: rewritten[...])
        precondition(after?.pictureID == descriptor.pictureID.map { _ in pictureID }, "rewrite lost the picture ID")
        precondition(after?.tl0PictureIndex == descriptor.tl0PictureIndex.map { _ in 0xA5 }, "rewrite lost TL0PICIDX")
    }

    /// The input as a run of packets (each chunk's first byte: length, marker bit, a sequence
    /// skip) through the depacketizer: whatever arrives, it never traps nor grows without bound.
    static func depacketize(_ bytes: [UInt8]) {
        var depacketizer = VP8Depacketizer()
        var offset = 0
        var sequence: UInt16 = 0
        while offset < bytes.count {
            let control = bytes[offset]
            let length = min(Int(control & 0x3F) + 1, bytes.count - offset - 1)
            guard length > 0 else { break }
            let payload = bytes[(offset + 1)...(offset + length)]
            sequence &+= control & 0x40 != 0 ? 2 : 1
            if let frame = try? depacketizer.push(sequenceNumber: sequence, timestamp: UInt32(control >> 7), marker: control & 0x80 != 0,
                                                  payload: payload) {
                precondition(frame.data.count <= VP8Depacketizer.maxFrameBytes, "assembled frame over the cap")
            }
            offset += 1 + length
        }
    }
}
