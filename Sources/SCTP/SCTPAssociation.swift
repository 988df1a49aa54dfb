import CUsrSCTP
import Glibc
import ParleyCore
import Synchronization

/// One SCTP association (RFC 9260) carried over a datagram path its owner provides — for WebRTC
/// data channels, DTLS application data (RFC 8261) — with usrsctp in its no-threads mode: packets
/// come in through `receive`, go out through the `output` closure, and timers run when the owner
/// calls `SCTPAssociation.handleTimers()`; usrsctp starts no thread of its own. The only importer
/// of usrsctp.
///
/// Everything here runs on the thread that calls in (the owner's event loop); `output` and
/// `events` are called synchronously from inside `receive`, `send`, `handleTimers` and `close`,
/// so they must not call back into any association (queue instead).
public final class SCTPAssociation: @unchecked Sendable {
    public enum Event: Sendable, Equatable {
        /// The association is up: messages may be sent.
        case established
        /// A whole user message on `stream` with payload protocol `ppid`.
        case message(stream: UInt16, ppid: UInt32, data: [UInt8])
        /// The peer reset these incoming streams (closed its data channels on them).
        case streamsReset([UInt16])
        /// The association is gone (shut down, aborted, or never came up).
        case closed
    }

    /// How a message is delivered.
    public enum Reliability: Sendable, Equatable {
        case reliable
        case maxRetransmits(UInt32)
        /// Milliseconds.
        case maxPacketLifeTime(UInt32)
    }

    public enum SCTPError: Error, Equatable, Sendable {
        /// The send buffer is full: try again once the peer has acknowledged what is queued.
        case wouldBlock
        case system(String, Int32)
        case closed
    }

    private var socket: OpaquePointer?
    private let output: ([UInt8]) -> Void
    private let events: (Event) -> Void
    private var partial: [UInt8] = []
    private var isClosed = false
    private var handle: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    /// Largest message accepted, sent or reassembled (a=max-message-size, RFC 8841 §6).
    public static let maxMessageSize = 256 * 1024

    /// Creates the association and sends its INIT (both ends do; SCTP resolves the collision).
    public init(localPort: UInt16 = 5000, remotePort: UInt16 = 5000, output: @escaping ([UInt8]) -> Void,
                events: @escaping (Event) -> Void) throws(SCTPError) {
        self.output = output
        self.events = events
        SCTPLibrary.ensureStarted()
        usrsctp_register_address(handle)
        guard let socket = usrsctp_socket(AF_CONN, Int32(SOCK_STREAM.rawValue), Int32(IPPROTO_SCTP), sctpReceive, nil, 0, handle)
        else {
            usrsctp_deregister_address(handle)
            throw .system("usrsctp_socket", errno)
        }
        self.socket = socket
        var rc = parley_sctp_configure(socket)
        if rc == 0 { rc = parley_sctp_connect(socket, handle, localPort, remotePort) }
        guard rc == 0 else {
            usrsctp_close(socket)
            self.socket = nil
            usrsctp_deregister_address(handle)
            throw .system("configure/connect", rc)
        }
        // Packets that fit a path once DTLS and UDP are added (browsers use the same 1,188 bytes).
        _ = parley_sctp_set_mtu(socket, handle, remotePort, UInt32(Self.packetSize))
    }

    /// Largest SCTP packet sent: with a DTLS record's overhead it stays under 1,280 bytes.
    public static let packetSize = 1188

    deinit { close() }

    /// One SCTP packet from the path.
    public func receive(_ packet: UnsafeRawBufferPointer) {
        guard !isClosed, let base = packet.baseAddress else { return }
        usrsctp_conninput(handle, base, packet.count, 0)
    }

    /// Sends one message (`data` may be empty only for the empty-message PPIDs, which carry one byte).
    public func send(stream: UInt16, ppid: UInt32, data: [UInt8], unordered: Bool = false,
                     reliability: Reliability = .reliable) throws(SCTPError) {
        guard let socket, !isClosed else { throw .closed }
        let (policy, value): (UInt16, UInt32) = switch reliability {
        case .reliable: (0, 0)
        case .maxRetransmits(let n): (UInt16(SCTP_PR_SCTP_RTX), n)
        case .maxPacketLifeTime(let ms): (UInt16(SCTP_PR_SCTP_TTL), ms)
        }
        let payload = data.isEmpty ? [0] : data
        let rc = payload.withUnsafeBytes { parley_sctp_send(socket, stream, ppid, $0.baseAddress, $0.count, unordered ? 1 : 0, policy, value) }
        switch rc {
        case 0: return
        case EAGAIN, EWOULDBLOCK: throw .wouldBlock
        default: throw .system("usrsctp_sendv", rc)
        }
    }

    /// Resets the outgoing side of `streams` (closing their data channels, RFC 8831 §6.7).
    public func resetStreams(_ streams: [UInt16]) throws(SCTPError) {
        guard let socket, !isClosed else { throw .closed }
        let rc = streams.withUnsafeBufferPointer { parley_sctp_reset_streams(socket, $0.baseAddress, UInt16($0.count)) }
        guard rc == 0 else { throw .system("SCTP_RESET_STREAMS", rc) }
    }

    /// Aborts the association (no more output or events after this returns).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        if let socket { usrsctp_close(socket) }
        socket = nil
        usrsctp_deregister_address(handle)
    }

    /// Runs usrsctp's timers (retransmissions, heartbeats) for every association: call it about
    /// every 10 ms while any association exists.
    public static func handleTimers() { SCTPLibrary.handleTimers() }

    // MARK: From usrsctp (synchronously, on the calling thread)

    fileprivate func emit(_ packet: UnsafeRawBufferPointer) {
        guard !isClosed else { return }
        output(Array(packet))
    }

    fileprivate func delivered(_ data: UnsafeMutableRawPointer?, _ length: Int, _ info: sctp_rcvinfo, _ flags: Int32) {
        defer { free(data) }  // usrsctp hands over the buffer
        guard !isClosed, let data else {
            if !isClosed, data == nil { signalClosed() }
            return
        }
        if flags & Int32(MSG_NOTIFICATION) != 0 { return notification(data, length) }
        guard partial.count + length <= Self.maxMessageSize else {
            partial = []
            return  // an oversize message is dropped, not buffered
        }
        partial += UnsafeRawBufferPointer(start: data, count: length)
        guard flags & Int32(MSG_EOR) != 0 else { return }
        let message = partial
        partial = []
        let ppid = UInt32(bigEndian: info.rcv_ppid)
        let empty = ppid == 56 || ppid == 57  // RFC 8831 §8: one byte standing for nothing
        events(.message(stream: info.rcv_sid, ppid: ppid, data: empty ? [] : message))
    }

    private func notification(_ data: UnsafeMutableRawPointer, _ length: Int) {
        switch Int32(parley_sctp_notification_type(data, length)) {
        case SCTP_ASSOC_CHANGE:
            switch Int32(parley_sctp_assoc_state(data, length)) {
            case SCTP_COMM_UP: events(.established)
            case SCTP_COMM_LOST, SCTP_SHUTDOWN_COMP, SCTP_CANT_STR_ASSOC: signalClosed()
            default: break
            }
        case SCTP_STREAM_RESET_EVENT:
            var streams = [UInt16](repeating: 0, count: 1024)
            let n = streams.withUnsafeMutableBufferPointer { parley_sctp_reset_incoming_streams(data, length, $0.baseAddress, $0.count) }
            if n > 0 { events(.streamsReset(Array(streams.prefix(n)))) }
        case SCTP_SHUTDOWN_EVENT:
            signalClosed()
        default:
            break
        }
    }

    private var closeSignalled = false
    private func signalClosed() {
        guard !closeSignalled else { return }
        closeSignalled = true
        events(.closed)
    }
}

/// usrsctp's process-wide state: started once, its timers driven from whatever thread calls.
enum SCTPLibrary {
    private static let state = Mutex<(started: Bool, lastTick: UInt64)>((false, 0))

    static func ensureStarted() {
        state.withLock { s in
            guard !s.started else { return }
            parley_sctp_init(sctpOutput)
            s.started = true
            s.lastTick = monotonicMilliseconds()
        }
    }

    static func handleTimers() {
        let elapsed = state.withLock { s -> UInt32? in
            guard s.started else { return nil }
            let now = monotonicMilliseconds()
            defer { s.lastTick = now }
            return UInt32(clamping: now &- s.lastTick)
        }
        if let elapsed { usrsctp_handle_timers(elapsed) }
    }

    private static func monotonicMilliseconds() -> UInt64 { UInt64(SystemClock.now.nanoseconds / 1_000_000) }
}

/// usrsctp's conn output: `addr` is the association's handle.
private let sctpOutput: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int, UInt8, UInt8) -> Int32 = {
    addr, buffer, length, _, _ in
    guard let addr, let buffer else { return -1 }
    Unmanaged<SCTPAssociation>.fromOpaque(addr).takeUnretainedValue().emit(UnsafeRawBufferPointer(start: buffer, count: length))
    return 0
}

/// usrsctp's receive callback: `ulp` is the association's handle; a nil `data` means the
/// association is gone.
private let sctpReceive: @convention(c) (OpaquePointer?, sctp_sockstore, UnsafeMutableRawPointer?, Int, sctp_rcvinfo, Int32,
                                         UnsafeMutableRawPointer?) -> Int32 = { _, _, data, length, info, flags, ulp in
    guard let ulp else { free(data); return 1 }
    Unmanaged<SCTPAssociation>.fromOpaque(ulp).takeUnretainedValue().delivered(data, length, info, flags)
    return 1
}
