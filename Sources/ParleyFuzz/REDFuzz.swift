import ParleyRTP
import RTP

/// Feeds bytes to the RFC 2198 RED parser. Whatever parses must rebuild, through the builder, to
/// the same bytes, and the rebuilt payload must parse to the same blocks.
enum REDFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        guard let view = try? REDPayloadView(data) else { return }
        precondition(view.count >= 1 && view.count <= REDPayloadView.maxBlocks, "RED block count out of range")
        precondition(view.primary.isPrimary && view.primary.timestampOffset == 0, "RED primary malformed")

        var sum = UInt64(0)
        var dataBytes = 0
        for block in view {
            sum &+= UInt64(block.payloadType) &+ UInt64(block.timestampOffset)
            for byte in block.data { sum &+= UInt64(byte) }
            dataBytes += block.data.count
        }
        precondition(dataBytes + 4 * view.redundantCount + 1 == data.count, "RED blocks do not cover the payload")

        // parse → build → bytes are identical.
        var buffer = [UInt8](repeating: 0, count: data.count)
        let written = buffer.withUnsafeMutableBytes { raw -> Int? in
            guard var builder = try? REDPayloadBuilder(into: raw, redundantCount: view.redundantCount) else { return nil }
            for block in view.dropLast() {
                guard (try? builder.appendRedundant(payloadType: block.payloadType,
                                                    timestampOffset: UInt32(block.timestampOffset),
                                                    data: block.data)) != nil else { return nil }
            }
            return try? builder.finish(primaryPayloadType: view.primary.payloadType, primary: view.primary.data)
        }
        precondition(written == data.count, "RED builder refused or resized a parsed payload")
        precondition(buffer.elementsEqual(data), "RED rebuild changed the bytes")

        // A forwarder renames the block types in place: the same blocks come back, renamed.
        let renamed = buffer.withUnsafeMutableBytes { REDPayloadView.renameBlocks(in: $0, to: 0x55) }
        precondition(renamed, "a parsed RED payload was refused for renaming")
        buffer.withUnsafeBytes { raw in
            guard let again = try? REDPayloadView(raw) else { preconditionFailure("renamed RED payload does not parse") }
            precondition(again.count == view.count && again.allSatisfy { $0.payloadType == 0x55 }, "renaming changed the blocks")
            precondition(zip(again, view).allSatisfy { $0.timestampOffset == $1.timestampOffset && $0.data.elementsEqual($1.data) },
                         "renaming changed offsets or data")
        }
        // What a forwarder sends on for packets lost before this one stays within the payload's blocks.
        var recovery = REDLossRecovery()
        var recovered: [REDLossRecovery.Recovered] = []
        recovery.observe(sequenceNumber: 1_000)
        recovery.recover(sequenceNumber: 1_000 &+ UInt16(truncatingIfNeeded: data.count % 9), timestamp: 123_456, red: view,
                         into: &recovered)
        precondition(recovered.allSatisfy { $0.block < view.redundantCount }, "recovered a block that is not redundant")
        blackHole(sum)
    }

    @inline(never) private static func blackHole(_ value: UInt64) { _ = value }
}
