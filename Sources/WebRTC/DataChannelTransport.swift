import DataChannel
import ParleyCore
import SCTP
import Synchronization

/// WebRTC data channels (RFC 8831) over one session's DTLS: an SCTP association (`SCTPAssociation`,
/// usrsctp) whose packets are DTLS application data (RFC 8261 §5), and the channels on it
/// (`DataChannelSession`: DCEP, RFC 8832). The owner feeds it the DTLS records' plaintext
/// (`receive`), encrypts and sends what `takePackets` returns after every call, and calls `poll`
/// after usrsctp's timers ran.
///
/// usrsctp may call back from another thread (its timers are process-wide): its packets and events
/// land in a locked inbox, bounded, which the owner's calls drain on the owner's thread.
/// Everything else is the owner's loop only.
///
/// Sending is bounded twice: usrsctp's send buffer (1 MB, `SCTPAssociation`) holds what the peer
/// has not acknowledged; past it, a channel's messages wait in a backlog of their own, in order
/// (at most `channelBacklogBytes` per channel and `backlogBytes` in all), sent as acknowledgements
/// free the buffer. A message that fits neither is not taken (`SendOutcome.blocked`).
final class DataChannelTransport {
    /// What the owner hears of.
    enum Notice: Sendable, Equatable {
        /// The association is up.
        case established
        /// A channel opened: by the peer (`byPeer`), or one of ours that the peer acknowledged.
        case opened(DataChannelSession.Channel, byPeer: Bool)
        case message(stream: UInt16, data: [UInt8], isBinary: Bool)
        /// A channel is gone (either side closed it).
        case closed(stream: UInt16)
        /// The association is gone (shut down, aborted, or it never came up).
        case gone
    }

    enum SendOutcome: Sendable, Equatable {
        case sent
        /// In the channel's backlog, behind what the association's send buffer holds.
        case queued
        /// Neither the send buffer nor the backlog takes it: the peer does not take what it is sent.
        case blocked
        /// Not sent: no such open channel, over the size limit, or the association is not up.
        case refused
    }

    struct Counters: Sendable, Hashable {
        var messagesReceived = 0
        var messagesSent = 0
        var sendsBlocked = 0
        var sendsRefused = 0
        /// Messages that waited in a backlog (and were sent later, unless their channel closed).
        var messagesQueued = 0
        /// SCTP packets or events usrsctp produced past the inbox's bound (SCTP retransmits).
        var inboxOverflows = 0
    }

    /// The association's packets and events between usrsctp's callbacks and the owner.
    final class Inbox: Sendable {
        struct State {
            var packets: [[UInt8]] = []
            var events: [SCTPAssociation.Event] = []
            var overflows = 0
        }

        let state = Mutex(State())
        /// A burst of SCTP packets (a full congestion window of 1,200-byte packets is ~900).
        static let maxPackets = 2048
        static let maxEvents = 4096

        func packet(_ bytes: [UInt8]) {
            state.withLock { s in
                if s.packets.count < Self.maxPackets { s.packets.append(bytes) } else { s.overflows += 1 }
            }
        }

        func event(_ event: SCTPAssociation.Event) {
            state.withLock { s in
                // An end of the association is kept whatever the bound.
                if s.events.count < Self.maxEvents || event == .closed { s.events.append(event) } else { s.overflows += 1 }
            }
        }
    }

    private(set) var channels: DataChannelSession
    private var association: SCTPAssociation?
    private let inbox = Inbox()
    /// DCEP opens and stream resets decided before the association was up (at most one per stream).
    private var pending: [DataChannelSession.Action] = []
    private(set) var isEstablished = false
    private(set) var isGone = false
    let remotePort: UInt16
    private(set) var counters = Counters()
    /// Messages waiting for room in the send buffer, per stream, in order; and their bytes.
    private var backlogs: [UInt16: Backlog] = [:]
    private(set) var backlogged = 0
    static let channelBacklogBytes = 256 * 1024
    static let backlogBytes = 1024 * 1024

    /// One channel's waiting messages (a queue read from `head`).
    private struct Backlog {
        var messages: [(ppid: UInt32, data: [UInt8], unordered: Bool, reliability: SCTPAssociation.Reliability)] = []
        var head = 0
        var bytes = 0
        var isEmpty: Bool { head == messages.count }
    }

    /// - Parameters:
    ///   - role: our DTLS role (the client opens even streams, the server odd ones, RFC 8832 §6).
    ///   - sendLimit: the largest message we send (the peer's `a=max-message-size` and ours).
    init(role: DataChannelSession.Role, remotePort: UInt16, sendLimit: Int) {
        channels = DataChannelSession(role: role, maxMessageSize: sendLimit)
        self.remotePort = remotePort
    }

    deinit { association?.close() }

    /// Whether the association runs (started and not gone): its timers need driving.
    var isRunning: Bool { association != nil && !isGone }

    /// Starts the association once DTLS is up (its INIT goes out through `takePackets`).
    func start() -> [Notice] {
        guard association == nil, !isGone else { return [] }
        let inbox = self.inbox
        do {
            association = try SCTPAssociation(localPort: OfferedApplication.localPort, remotePort: remotePort,
                                              output: { inbox.packet($0) }, events: { inbox.event($0) })
        } catch {
            Log.info(.webrtc, "data channels: no SCTP association: \(error)")
            isGone = true
            return [.gone]
        }
        return poll()
    }

    /// One DTLS application-data record: an SCTP packet (RFC 8261 §5).
    func receive(_ packet: [UInt8]) -> [Notice] {
        guard let association, !isGone else { return [] }
        packet.withUnsafeBytes { association.receive($0) }
        return poll()  // acknowledgements may have freed the send buffer: `poll` drains the backlogs
    }

    /// Handles what usrsctp reported since the last call (after its timers ran, or any call).
    func poll() -> [Notice] {
        let (events, overflows) = inbox.state.withLock { s -> ([SCTPAssociation.Event], Int) in
            defer {
                s.events.removeAll(keepingCapacity: true)
                s.overflows = 0
            }
            return (s.events, s.overflows)
        }
        counters.inboxOverflows += overflows
        var notices: [Notice] = []
        for event in events where !isGone {
            switch event {
            case .established:
                guard !isEstablished else { continue }
                isEstablished = true
                notices.append(.established)
                let queued = pending
                pending = []
                perform(queued, into: &notices)
            case .message(let stream, let ppid, let data):
                perform(channels.received(stream: stream, ppid: ppid, data: data), into: &notices)
            case .streamsReset(let streams):
                perform(channels.streamsReset(streams), into: &notices)
            case .closed:
                isGone = true
                notices.append(.gone)
            }
        }
        drainBacklogs()
        return notices
    }

    /// Sends waiting messages while the association takes them, channel by channel.
    private func drainBacklogs() {
        guard backlogged > 0, isEstablished, !isGone, let association else { return }
        for stream in Array(backlogs.keys) {
            guard var backlog = backlogs.removeValue(forKey: stream) else { continue }
            defer { if !backlog.isEmpty { backlogs[stream] = backlog } }
            while !backlog.isEmpty {
                let m = backlog.messages[backlog.head]
                do {
                    try association.send(stream: stream, ppid: m.ppid, data: m.data, unordered: m.unordered, reliability: m.reliability)
                } catch .wouldBlock {
                    return
                } catch {
                    counters.sendsRefused += 1
                }
                backlog.head += 1
                backlog.bytes -= m.data.count
                backlogged -= m.data.count
                counters.messagesSent += 1
            }
        }
    }

    /// SCTP packets to encrypt and send, in order.
    func takePackets() -> [[UInt8]] {
        inbox.state.withLock { s in
            defer { s.packets.removeAll(keepingCapacity: true) }
            return s.packets
        }
    }

    /// Opens a channel of ours (DATA_CHANNEL_OPEN now, or once the association is up); its stream,
    /// or nil when no stream is free or the association is gone.
    func open(label: String, protocol: String, isOrdered: Bool, reliability: DataChannelOpen.Reliability,
              priority: UInt16) -> UInt16? {
        guard !isGone, let opened = try? channels.open(label: label, protocol: `protocol`, isOrdered: isOrdered,
                                                      reliability: reliability, priority: priority) else { return nil }
        var notices: [Notice] = []
        perform(opened.actions, into: &notices)
        return opened.stream
    }

    /// Sends a message on an open channel.
    func send(stream: UInt16, data: [UInt8], isBinary: Bool) -> SendOutcome {
        guard isEstablished, !isGone, let association,
              let actions = try? channels.send(stream: stream, data: data, isBinary: isBinary),
              case .send(_, let ppid, let payload, let unordered, let reliability)? = actions.first else {
            counters.sendsRefused += 1
            return .refused
        }
        let sctpReliability = Self.sctp(reliability)
        if backlogs[stream]?.isEmpty != false {  // nothing waits ahead of it
            do {
                try association.send(stream: stream, ppid: ppid, data: payload, unordered: unordered, reliability: sctpReliability)
                counters.messagesSent += 1
                return .sent
            } catch .wouldBlock {
                // Into the backlog, below.
            } catch {
                counters.sendsRefused += 1
                return .refused
            }
        }
        var backlog = backlogs[stream] ?? Backlog()
        guard backlog.bytes + payload.count <= Self.channelBacklogBytes, backlogged + payload.count <= Self.backlogBytes else {
            counters.sendsBlocked += 1
            return .blocked
        }
        if backlog.head > 64, backlog.head * 2 > backlog.messages.count {
            backlog.messages.removeFirst(backlog.head)
            backlog.head = 0
        }
        backlog.messages.append((ppid, payload, unordered, sctpReliability))
        backlog.bytes += payload.count
        backlogged += payload.count
        backlogs[stream] = backlog
        counters.messagesQueued += 1
        return .queued
    }

    /// Drops what a channel had waiting.
    private func dropBacklog(_ stream: UInt16) {
        guard let backlog = backlogs.removeValue(forKey: stream) else { return }
        backlogged -= backlog.bytes
    }

    /// Closes a channel (its outgoing stream is reset, RFC 8831 §6.7); one whose open never went
    /// out is simply forgotten.
    func close(stream: UInt16) {
        dropBacklog(stream)
        if !isEstablished, pending.contains(where: { if case .send(stream, _, _, _, _) = $0 { true } else { false } }) {
            pending.removeAll { if case .send(stream, _, _, _, _) = $0 { true } else { false } }
            channels.forget(stream: stream)
            return
        }
        var notices: [Notice] = []
        perform(channels.close(stream: stream), into: &notices)
    }

    /// Aborts the association; nothing more is sent or reported.
    func shutdown() {
        association?.close()
        isGone = true
        pending = []
        backlogs = [:]
        backlogged = 0
        _ = takePackets()
    }

    /// Carries out a channel session's actions on the association; what the owner should hear of
    /// goes into `notices`.
    private func perform(_ actions: [DataChannelSession.Action], into notices: inout [Notice]) {
        for action in actions {
            switch action {
            case .send(let stream, let ppid, let data, let unordered, let reliability):
                guard isEstablished, let association else {
                    pending.append(action)
                    continue
                }
                do {
                    try association.send(stream: stream, ppid: ppid, data: data, unordered: unordered,
                                         reliability: Self.sctp(reliability))
                } catch {
                    counters.sendsBlocked += 1  // a DCEP message lost: the channel stays connecting
                }
            case .resetStreams(let streams):
                guard isEstablished, let association else {
                    pending.append(action)
                    continue
                }
                do { try association.resetStreams(streams) } catch {
                    Log.debug(.webrtc, "data channels: stream reset of \(streams) failed: \(error)")
                }
            case .opened(let channel):
                notices.append(.opened(channel, byPeer: channel.stream % 2 != ourParity))
            case .message(let stream, let data, let isBinary):
                counters.messagesReceived += 1
                notices.append(.message(stream: stream, data: data, isBinary: isBinary))
            case .closed(let stream):
                notices.append(.closed(stream: stream))
            }
        }
    }

    private var ourParity: UInt16 { channels.role == .dtlsClient ? 0 : 1 }

    static func sctp(_ reliability: DataChannelOpen.Reliability) -> SCTPAssociation.Reliability {
        switch reliability {
        case .reliable: .reliable
        case .maxRetransmits(let n): .maxRetransmits(n)
        case .maxPacketLifeTime(let ms): .maxPacketLifeTime(ms)
        }
    }
}
