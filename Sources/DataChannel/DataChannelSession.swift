/// The data channels of one SCTP association (RFC 8831, RFC 8832) as a value type: which stream
/// is which channel, the DCEP handshake, and what to send or deliver. Its owner feeds it SCTP
/// messages and stream resets and the application's requests, and carries out the actions it
/// returns on the association; no I/O or clock here.
public struct DataChannelSession: Sendable {
    /// Which side of the DTLS handshake this end was: the client opens channels on even stream
    /// ids, the server on odd ones (RFC 8832 §6).
    public enum Role: Sendable { case dtlsClient, dtlsServer }

    public struct Channel: Sendable, Hashable {
        public enum State: Sendable, Hashable { case connecting, open, closing }
        public let stream: UInt16
        public let label: String
        public let `protocol`: String
        public let isOrdered: Bool
        public let reliability: DataChannelOpen.Reliability
        public internal(set) var state: State
    }

    public enum Action: Sendable, Equatable {
        /// Send on the association.
        case send(stream: UInt16, ppid: UInt32, data: [UInt8], unordered: Bool, reliability: DataChannelOpen.Reliability)
        /// Reset these outgoing streams.
        case resetStreams([UInt16])
        /// A channel opened by the peer, or ours acknowledged.
        case opened(Channel)
        /// A message on an open channel.
        case message(stream: UInt16, data: [UInt8], isBinary: Bool)
        /// A channel is gone (either side closed it).
        case closed(stream: UInt16)
    }

    public enum SessionError: Error, Equatable, Sendable {
        case noFreeStream, unknownChannel(UInt16), channelClosing(UInt16), messageTooLarge(Int)
    }

    public let role: Role
    /// Streams the association negotiated (RFC 8831 §6.2: at least 16, usually 1024 or 65535).
    public let streamCount: UInt16
    public let maxMessageSize: Int
    public private(set) var channels: [UInt16: Channel] = [:]
    /// DCEP messages and data on unknown streams dropped (counted, as bad input is).
    public private(set) var dropped = 0

    public init(role: Role, streamCount: UInt16 = 1024, maxMessageSize: Int = 256 * 1024) {
        self.role = role
        self.streamCount = streamCount
        self.maxMessageSize = maxMessageSize
    }

    /// Opens a channel: the lowest free stream id of our parity, and DATA_CHANNEL_OPEN on it.
    /// Messages may follow at once (RFC 8832 §6: they are delivered after the open, in order).
    public mutating func open(label: String, protocol: String = "", isOrdered: Bool = true,
                              reliability: DataChannelOpen.Reliability = .reliable,
                              priority: UInt16 = 256) throws(SessionError) -> (stream: UInt16, actions: [Action]) {
        var stream: UInt16 = role == .dtlsClient ? 0 : 1
        while channels[stream] != nil {
            guard stream < streamCount - 2 else { throw .noFreeStream }
            stream += 2
        }
        guard stream < streamCount else { throw .noFreeStream }
        let open = DataChannelOpen(label: label, protocol: `protocol`, isOrdered: isOrdered, reliability: reliability,
                                   priority: priority)
        channels[stream] = Channel(stream: stream, label: open.label, protocol: open.protocol, isOrdered: isOrdered,
                                   reliability: reliability, state: .connecting)
        // DCEP messages themselves go reliable and ordered (RFC 8832 §6).
        return (stream, [.send(stream: stream, ppid: DataChannelPPID.dcep.rawValue, data: DataChannelMessage.open(open).serialized,
                               unordered: false, reliability: .reliable)])
    }

    /// A message that arrived on the association.
    public mutating func received(stream: UInt16, ppid: UInt32, data: [UInt8]) -> [Action] {
        switch DataChannelPPID(rawValue: ppid) {
        case .dcep:
            return dcep(stream: stream, data: data)
        case .string, .binary, .emptyString, .emptyBinary:
            guard let channel = channels[stream], channel.state != .closing else {
                dropped += 1
                return []
            }
            var actions: [Action] = []
            if channel.state == .connecting {
                // RFC 8832 §6: data before the ACK implies the open succeeded.
                channels[stream]?.state = .open
                actions.append(.opened(channels[stream]!))
            }
            let isBinary = ppid == DataChannelPPID.binary.rawValue || ppid == DataChannelPPID.emptyBinary.rawValue
            actions.append(.message(stream: stream, data: data, isBinary: isBinary))
            return actions
        case nil:
            dropped += 1
            return []
        }
    }

    private mutating func dcep(stream: UInt16, data: [UInt8]) -> [Action] {
        guard let message = try? DataChannelMessage(parsing: data[...]) else {
            dropped += 1
            return []
        }
        switch message {
        case .open(let open):
            // The peer opens on its own parity; a collision with one of ours is refused.
            let peerParity: UInt16 = role == .dtlsClient ? 1 : 0
            guard stream % 2 == peerParity, channels[stream] == nil, stream < streamCount else {
                dropped += 1
                return []
            }
            let channel = Channel(stream: stream, label: open.label, protocol: open.protocol, isOrdered: open.isOrdered,
                                  reliability: open.reliability, state: .open)
            channels[stream] = channel
            return [.send(stream: stream, ppid: DataChannelPPID.dcep.rawValue, data: DataChannelMessage.ack.serialized,
                          unordered: false, reliability: .reliable),
                    .opened(channel)]
        case .ack:
            guard channels[stream]?.state == .connecting else { return [] }
            channels[stream]?.state = .open
            return [.opened(channels[stream]!)]
        }
    }

    /// Sends a message on a channel (empty messages travel as the empty PPIDs, RFC 8831 §6.6).
    public func send(stream: UInt16, data: [UInt8], isBinary: Bool) throws(SessionError) -> [Action] {
        guard let channel = channels[stream] else { throw .unknownChannel(stream) }
        guard channel.state != .closing else { throw .channelClosing(stream) }
        guard data.count <= maxMessageSize else { throw .messageTooLarge(data.count) }
        let ppid: DataChannelPPID = switch (isBinary, data.isEmpty) {
        case (true, false): .binary
        case (true, true): .emptyBinary
        case (false, false): .string
        case (false, true): .emptyString
        }
        return [.send(stream: stream, ppid: ppid.rawValue, data: data, unordered: !channel.isOrdered, reliability: channel.reliability)]
    }

    /// Closes a channel: its outgoing stream is reset; it is gone once the peer resets its side.
    public mutating func close(stream: UInt16) -> [Action] {
        guard let channel = channels[stream], channel.state != .closing else { return [] }
        channels[stream]?.state = .closing
        return [.resetStreams([stream])]
    }

    /// Forgets a channel of ours whose DATA_CHANNEL_OPEN never went out (the association did not
    /// come up): nothing is sent, its stream is free again. True if there was such a channel.
    @discardableResult
    public mutating func forget(stream: UInt16) -> Bool {
        channels.removeValue(forKey: stream) != nil
    }

    /// The peer reset these incoming streams: the channels on them are gone (our side resets
    /// its outgoing stream too, unless it already did).
    public mutating func streamsReset(_ streams: [UInt16]) -> [Action] {
        var ours: [UInt16] = []
        var actions: [Action] = []
        for stream in streams {
            guard let channel = channels.removeValue(forKey: stream) else { continue }
            if channel.state != .closing { ours.append(stream) }
            actions.append(.closed(stream: stream))
        }
        return ours.isEmpty ? actions : [.resetStreams(ours)] + actions
    }
}
