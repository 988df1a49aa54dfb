import RTP

/// Feeds bytes to the zero-copy RTP view, the owned packet parser and the in-place rewriter.
/// Whatever parses must re-serialize to bytes that parse to the same packet.
enum RTPFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        guard let view = try? RTPPacketView(data) else {
            precondition((try? RTPPacket(parsing: data)) == nil, "owned parser accepted what the view refused")
            return
        }
        touch(view)
        guard let packet = try? RTPPacket(view) else { return }

        // parse → serialize → parse is stable, through every serializer.
        let bytes = packet.serialized
        precondition(bytes.count == packet.serializedSize, "RTP serializedSize disagrees with serialize")
        precondition((try? RTPPacket(parsing: bytes)) == packet, "RTP round trip changed the packet")
        var buffer = [UInt8](repeating: 0, count: packet.serializedSize)
        let written = buffer.withUnsafeMutableBytes { raw in try? packet.serialize(into: raw) }
        precondition(written == bytes.count && buffer == bytes, "RTP buffer serializer disagrees")

        // Rewriting header fields and extension elements in place keeps the packet valid.
        var copy = Array(data)
        copy.withUnsafeMutableBytes { raw in
            guard let rewriter = try? RTPHeaderRewriter(raw) else {
                preconditionFailure("rewriter refused a packet the view accepted")
            }
            rewriter.sequenceNumber = rewriter.sequenceNumber &+ 1
            rewriter.timestamp = ~rewriter.timestamp
            rewriter.ssrc = rewriter.ssrc &+ 0x1234
            rewriter.marker.toggle()
            rewriter.payloadType = 127 &- rewriter.payloadType
            for id in UInt8(1)...14 {
                _ = rewriter.setTransportWideSequenceNumber(0xFFFF, id: id)
                _ = rewriter.setAbsSendTime(AbsSendTime(rawValue: 0xFF_FFFF), id: id)
            }
        }
        let rewritten = copy.withUnsafeBytes { raw in try? RTPPacketView(raw).payloadRange }
        precondition(rewritten == view.payloadRange, "rewriting moved the payload")
    }

    /// Reads every accessor so the sanitizers see each offset the view computes.
    private static func touch(_ view: RTPPacketView) {
        var sum = UInt64(view.sequenceNumber) &+ UInt64(view.timestamp) &+ UInt64(view.ssrc)
        sum &+= UInt64(view.payloadType) &+ (view.marker ? 1 : 0) &+ UInt64(view.paddingCount)
        for i in 0..<view.csrcCount { sum &+= UInt64(view.csrc(at: i)) }
        for byte in view.payload { sum &+= UInt64(byte) }
        for element in view.extensionElements {
            sum &+= UInt64(element.id)
            sum &+= UInt64((try? AbsSendTime(parsing: element.data))?.rawValue ?? 0)
            sum &+= UInt64((try? TransportWideSequenceNumber(parsing: element.data))?.value ?? 0)
            sum &+= UInt64((try? AudioLevel(parsing: element.data))?.level ?? 0)
            for kind in [SDESIdentifierElement.Kind.mid, .streamID] {
                if let identifier = try? SDESIdentifierElement(parsing: element.data, kind: kind) {
                    guard SDESIdentifierElement.matches(element.data, identifier.serialized) else {
                        fatalError("an SDES identifier does not match its own bytes")
                    }
                    sum &+= UInt64(identifier.text.utf8.count)
                }
            }
        }
        _ = view.extensionElement(id: 1)
        _ = view.extensionProfile
        blackHole(sum)
    }

    @inline(never) private static func blackHole(_ value: UInt64) { _ = value }
}
