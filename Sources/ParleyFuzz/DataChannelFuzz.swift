import DataChannel

/// Feeds bytes to the DCEP parser: a message that parses serializes to bytes that parse to it.
/// Then reads the same bytes as a peer's SCTP messages and stream resets at the usrsctp boundary
/// (`DataChannelSession.received` / `streamsReset`, both DTLS roles): every action refers to a
/// stream the session knows or knew, channels stay within the stream count, and what the session
/// sends parses back (DCEP) or is the message it was given.
enum DataChannelFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        if let message = try? DataChannelMessage(parsing: bytes[...]) {
            let again = try? DataChannelMessage(parsing: message.serialized[...])
            precondition(again == message, "DCEP message does not round-trip")
        }
        for role in [DataChannelSession.Role.dtlsClient, .dtlsServer] { drive(bytes, role: role) }
    }

    /// Records of `[op, stream hi, stream lo, ppid, length hi, length lo, payload…]`: op bit 0 a
    /// message (PPID 48…57), else a stream reset; bit 1 our own open first, bit 2 a send on it.
    static func drive(_ bytes: [UInt8], role: DataChannelSession.Role) {
        var session = DataChannelSession(role: role, streamCount: 64, maxMessageSize: 4096)
        var i = 0
        while i + 6 <= bytes.count {
            let op = bytes[i], stream = UInt16(bytes[i + 1]) << 8 | UInt16(bytes[i + 2])
            let ppid = 48 + UInt32(bytes[i + 3] % 10)
            let length = min(Int(bytes[i + 4]) << 8 | Int(bytes[i + 5]), bytes.count - i - 6)
            let payload = Array(bytes[(i + 6)..<(i + 6 + length)])
            i += 6 + length
            if op & 2 != 0, let opened = try? session.open(label: "f", isOrdered: op & 8 == 0,
                                                            reliability: op & 16 == 0 ? .reliable : .maxRetransmits(UInt32(op))) {
                check(opened.actions, session)
                if op & 4 != 0 { check((try? session.send(stream: opened.stream, data: payload, isBinary: op & 32 != 0)) ?? [], session) }
            }
            let actions = op & 1 != 0 ? session.received(stream: stream, ppid: ppid, data: payload)
                : session.streamsReset([stream, stream &+ 1])
            check(actions, session)
            precondition(session.channels.count <= Int(session.streamCount), "more channels than streams")
        }
    }

    static func check(_ actions: [DataChannelSession.Action], _ session: DataChannelSession) {
        for action in actions {
            switch action {
            case .send(_, let ppid, let data, _, _):
                if ppid == DataChannelPPID.dcep.rawValue {
                    precondition((try? DataChannelMessage(parsing: data[...])) != nil, "the session sent DCEP that does not parse")
                }
                precondition(data.count <= session.maxMessageSize, "a send over the size limit")
            case .opened(let channel):
                precondition(session.channels[channel.stream] != nil, "an opened channel the session does not hold")
            case .message(let stream, _, _):
                precondition(session.channels[stream] != nil, "a message on a stream without a channel")
            case .resetStreams, .closed:
                break
            }
        }
    }
}
