import DataChannel
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyRTP

/// A room session's data channels (RFC 8831): the transport, once the offer had a data channel
/// section, and the channels on it as the SFU sees them.
struct RoomDataChannels {
    var transport: DataChannelTransport?
    /// Channels the peer opened (its data tracks, by label), by stream, each with the channels of
    /// other sessions its messages go to.
    var inbound: [UInt16: DataInbound] = [:]
    /// Channels we opened toward the peer (its subscriptions), by stream, with what feeds them.
    var outbound: [UInt16: DataOutbound] = [:]
}

/// A channel the peer opened and who receives its messages.
struct DataInbound {
    let channel: DataChannelSession.Channel
    var sinks: [DataEnd] = []
    /// The bytes a second the track may forward (`PeerSession.Configuration.dataBitrateCap`).
    var allowance: PacketAllowance?
}

/// A channel we opened toward the peer: its label and its source, if any.
struct DataOutbound {
    let label: String
    let isReliable: Bool
    var source: DataEnd?
}

/// One channel of one session: the other end of a data route.
struct DataEnd {
    let session: PeerSession
    let stream: UInt16
}

/// Room sessions: data tracks through the SFU. Each channel the peer opens is a published data
/// track (by its label); the room service routes it to the channels we open toward subscribers
/// (`openData`), and every message the peer sends on it is sent on each of them, as it came
/// (string or binary), with the reliability the subscriber's channel was opened with (the
/// publisher's). A message the subscriber's association takes neither into its send buffer nor
/// into the channel's bounded backlog (`DataChannelTransport`: the subscriber does not acknowledge
/// what it is sent) is dropped, and a reliable channel that dropped one is closed (its subscriber
/// cannot get every message any more), counted either way.
extension PeerSession {
    /// Makes the data channel transport when the offer (first or re-offer) has a data channel
    /// section; starts it at once if DTLS is already up. True if it is running after the call.
    @discardableResult
    func prepareData(now: Double, out: inout [Datagram]) -> Bool {
        if kind == .room, roomData.transport == nil, let application = offer.application {
            roomData.transport = DataChannelTransport(role: offer.localDTLSRole == .client ? .dtlsClient : .dtlsServer,
                                                      remotePort: application.sctpPort, sendLimit: application.sendLimit)
            if dtls.state == .connected { startData(now: now, out: &out) }
        }
        return roomData.transport?.isRunning == true
    }

    /// DTLS is up: the association starts (both ends send INIT; SCTP resolves the collision).
    func startData(now: Double, out: inout [Datagram]) {
        guard let transport = roomData.transport else { return }
        handleData(transport.start(), now: now, out: &out)
    }

    /// DTLS application data: SCTP packets for the association.
    func receiveData(_ records: [[UInt8]], now: Double, out: inout [Datagram]) {
        guard let transport = roomData.transport else {
            counters.mediaDropped += records.count
            return
        }
        for record in records { handleData(transport.receive(record), now: now, out: &out) }
    }

    /// After usrsctp's timers ran: what they produced.
    func pollData(now: Double, out: inout [Datagram]) {
        guard let transport = roomData.transport else { return }
        handleData(transport.poll(), now: now, out: &out)
    }

    /// Encrypts and queues the association's packets (dropped when no path is selected: SCTP
    /// retransmits).
    func flushData(out: inout [Datagram]) {
        guard let transport = roomData.transport else { return }
        let packets = transport.takePackets()
        guard !packets.isEmpty, let socket = selectedSocketAddress, !state.isTerminal else { return }
        for packet in packets {
            for datagram in dtls.send(packet) { out.append(Datagram(address: socket, bytes: datagram)) }
        }
    }

    func handleData(_ notices: [DataChannelTransport.Notice], now: Double, out: inout [Datagram]) {
        for notice in notices {
            switch notice {
            case .established:
                Log.debug(.webrtc, "session \(id): SCTP association up")
            case .opened(let channel, byPeer: true):
                let cap = Double(configuration.dataBitrateCap) / 8
                // A burst of at least one largest message (64 KiB).
                roomData.inbound[channel.stream] = DataInbound(
                    channel: channel, allowance: cap > 0 ? PacketAllowance(rate: cap, burst: max(cap, 65_536)) : nil)
                Log.debug(.webrtc, "session \(id): data channel \(channel.label) opened on stream \(channel.stream)")
                events?.send(.dataChannelOpened(sessionID: id, label: channel.label))
            case .opened(_, byPeer: false):
                break
            case .message(let stream, let data, let isBinary):
                counters.dataMessagesReceived += 1
                // Only the peer's own channels publish; what it sends on ours goes nowhere.
                guard let inbound = roomData.inbound[stream] else {
                    counters.dataMessagesDropped += 1
                    continue
                }
                // One publisher cannot take the SFU: past its track's rate, messages are dropped.
                if roomData.inbound[stream]?.allowance?.take(Double(data.count), now: now) == false {
                    counters.dataMessagesOverRate += 1
                    continue
                }
                for sink in inbound.sinks { sink.session.sendData(data, isBinary: isBinary, stream: sink.stream, out: &out) }
            case .closed(let stream):
                if let inbound = roomData.inbound.removeValue(forKey: stream) {
                    for sink in inbound.sinks { sink.session.closeOutboundData(stream: sink.stream, out: &out) }
                    events?.send(.dataChannelClosed(sessionID: id, label: inbound.channel.label))
                } else if let outbound = roomData.outbound.removeValue(forKey: stream) {
                    outbound.source.map { unlink(source: $0, stream: stream) }
                }
            case .gone:
                let labels = roomData.inbound.values.map(\.channel.label)
                closeData(out: &out)
                for label in labels { events?.send(.dataChannelClosed(sessionID: id, label: label)) }
            }
        }
        flushData(out: &out)
    }

    /// Sends a forwarded message on our channel `stream` (see the type's note on what is dropped).
    func sendData(_ data: [UInt8], isBinary: Bool, stream: UInt16, out: inout [Datagram]) {
        guard let transport = roomData.transport else { return }
        switch transport.send(stream: stream, data: data, isBinary: isBinary) {
        case .sent, .queued:
            counters.dataMessagesForwarded += 1
        case .refused:
            counters.dataMessagesDropped += 1
        case .blocked:
            counters.dataMessagesDropped += 1
            if roomData.outbound[stream]?.isReliable == true {
                counters.dataChannelsDropped += 1
                Log.info(.webrtc, "session \(id): the peer does not take its data channel \(stream); closed")
                closeOutboundData(stream: stream, out: &out)
            }
        }
        flushData(out: &out)
    }

    /// Opens a channel toward the peer that carries the peer channel `source` of another session,
    /// labelled `label`, with the source's ordering, reliability, priority and protocol. Its
    /// stream, or nil (no data channel section, no free stream, the association is gone).
    func openOutboundData(label: String, source: DataEnd, out: inout [Datagram]) -> UInt16? {
        guard let transport = roomData.transport,
              let channel = source.session.roomData.inbound[source.stream]?.channel,
              let stream = transport.open(label: label, protocol: channel.protocol, isOrdered: channel.isOrdered,
                                          reliability: channel.reliability, priority: 256) else { return nil }
        roomData.outbound[stream] = DataOutbound(label: label, isReliable: channel.reliability == .reliable, source: source)
        source.session.roomData.inbound[source.stream]?.sinks.append(DataEnd(session: self, stream: stream))
        flushData(out: &out)
        return stream
    }

    /// Closes our channel `stream` toward the peer and unhooks it from its source.
    func closeOutboundData(stream: UInt16, out: inout [Datagram]) {
        guard let outbound = roomData.outbound.removeValue(forKey: stream) else { return }
        outbound.source.map { unlink(source: $0, stream: stream) }
        roomData.transport?.close(stream: stream)
        flushData(out: &out)
    }

    /// Our channel `stream` no longer takes `source`'s messages.
    private func unlink(source: DataEnd, stream: UInt16) {
        source.session.roomData.inbound[source.stream]?.sinks.removeAll { $0.session === self && $0.stream == stream }
    }

    /// The session is gone (or its association is): the channels it fed close, the channels that
    /// fed it forget it, the association is aborted.
    func closeData(out: inout [Datagram]) {
        for inbound in roomData.inbound.values {
            for sink in inbound.sinks { sink.session.closeOutboundData(stream: sink.stream, out: &out) }
        }
        for (stream, outbound) in roomData.outbound { outbound.source.map { unlink(source: $0, stream: stream) } }
        roomData.transport?.shutdown()
        roomData = RoomDataChannels()
    }
}
