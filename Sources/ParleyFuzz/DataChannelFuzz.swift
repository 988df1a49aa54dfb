import DataChannel

/// Feeds bytes to the DCEP parser: a message that parses serializes to bytes that parse to it.
enum DataChannelFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        guard let message = try? DataChannelMessage(parsing: Array(data)[...]) else { return }
        let again = try? DataChannelMessage(parsing: message.serialized[...])
        precondition(again == message, "DCEP message does not round-trip")
    }
}
