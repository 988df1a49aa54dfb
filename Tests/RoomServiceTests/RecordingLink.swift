import ParleyCore
import RoomService
import Signaling
import Synchronization

/// A participant's link that records what it is sent, in order.
final class RecordingLink: RoomParticipantLink {
    private let log = Mutex<(all: [(SignalingMessage, String?)], taken: Int)>(([], 0))
    private let reasons = Mutex<[ParleyError.Code]>([])

    func send(_ message: SignalingMessage, ref: String?) async { log.withLock { $0.all.append((message, ref)) } }
    func removed(_ reason: ParleyError) async { reasons.withLock { $0.append(reason.code) } }

    /// Everything sent, and each message's `ref`.
    var messages: [SignalingMessage] { log.withLock { $0.all.map(\.0) } }
    var refs: [String?] { log.withLock { $0.all.map(\.1) } }
    var removals: [ParleyError.Code] { reasons.withLock { $0 } }

    /// The messages sent since the last call.
    func take() -> [SignalingMessage] {
        log.withLock { log in
            defer { log.taken = log.all.count }
            return log.all[log.taken...].map(\.0)
        }
    }
}
